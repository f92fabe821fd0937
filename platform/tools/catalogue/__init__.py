"""The tools, one module each. Every module here declares ``SPECS``: the tool's ToolSpec (and
its parts' specs, for a tool made of several calls). ``tools.registry`` finds them all; no
other file lists tools."""
