"""`sneakycode review`: a model reviews a diff in plan mode and reports findings on the lines it touched.

diff.py collects the change with real git; plan.py splits a large one into parts that fit the window;
runner.py runs the review through the Python API (structured output with findings.schema.json);
findings.py keeps findings on lines the diff shows; formats.py renders text, JSON, GitHub annotations and
SARIF. A library: no argparse, no printing; the command line's face is faces/cli/review_command.py.
"""
