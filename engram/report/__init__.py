"""What `engram status`, `engram show` and `engram doctor` report, as data and checks."""
