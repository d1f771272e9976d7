"""cdclake's stand-in for the parts of PySpark a pipeline file uses (no Spark runs)."""
