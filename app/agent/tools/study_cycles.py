"""Study cycle tools."""
