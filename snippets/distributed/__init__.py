"""Chapter 3: the four distributed patterns, run with two processes over gloo."""
