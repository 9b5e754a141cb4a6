"""visdrone."""
