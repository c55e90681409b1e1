"""Goldensets and retrieval evaluation (IR metrics via ranx)."""
