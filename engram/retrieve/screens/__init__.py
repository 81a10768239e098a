"""What a retrieval holds back or merges between ranking and rendering: faded items and
items whose evidence is gone left out, pinned ones put first (curation.py); decisions that
may replace one another served as one answer (conflicts.py)."""
