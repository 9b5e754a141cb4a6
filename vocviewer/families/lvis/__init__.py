"""lvis."""
