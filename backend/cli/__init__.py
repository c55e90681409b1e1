"""The command line (`python -m backend ...`): `main` parses and dispatches; one module per
command family. Commands call the service layer only."""
