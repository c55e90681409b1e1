"""Tools for working on the code base itself (not imported by ragscope at run time)."""
