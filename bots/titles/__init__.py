"""Titles' own scorers for the bots: `bots/titles/<name>.py` exports `SCORER` (see bots.scoring)."""
