"""Chapter 3: the torch.compile pipeline, stage by stage."""
