"""Readings of a decision's own words the offline checker matches against a write: the files and
folders it protects, the code it quotes and forbids, where it lets code reach the database, and
the size it allows a function."""
