"""How to read these outputs: one small example of each format the site prints."""
