"""Local HTTP servers that speak vendors' wire formats, for tests of the real clients."""
