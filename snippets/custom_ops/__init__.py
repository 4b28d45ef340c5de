"""Chapter 2: a custom operator, `hood::scaled_linear`, registered with torch.library."""
