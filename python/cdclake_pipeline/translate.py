"""python3 -m cdclake_pipeline.translate FILE.py: runs a pipeline file against cdclake's
pyspark / dlt modules and prints the pipeline as cdclake SQL on stdout.

`--var` values come as JSON in CDCLAKE_PIPELINE_VARS (spark.conf.get reads them). A call
cdclake cannot run stops with "FILE:LINE: ..." naming it; any other error in the file shows
Python's own message. Exit code 2 for both, as for a SQL file that does not plan.
"""

import json
import os
import runpy
import sys
import traceback

import cdclake_pipeline
from cdclake_pipeline.session import SparkSession


def _line_in(path, tb):
    """The last line of `path` the traceback passes through."""
    line = None
    for frame in traceback.extract_tb(tb):
        if os.path.abspath(frame.filename) == path:
            line = frame.lineno
    return line


def main(argv):
    if len(argv) != 2:
        print("usage: python3 -m cdclake_pipeline.translate FILE.py", file=sys.stderr)
        return 2
    path = os.path.abspath(argv[1])
    values = json.loads(os.environ.get("CDCLAKE_PIPELINE_VARS", "{}"))
    spark = SparkSession(values)
    cdclake_pipeline.registry.user_file = path
    # The file's own folder, after the shipped modules: its helper modules import, and cannot
    # shadow pyspark or dlt.
    sys.path.append(os.path.dirname(path))
    # What the file prints goes to stderr: stdout carries the SQL only.
    out = sys.stdout
    sys.stdout = sys.stderr
    try:
        # Imported as a module, as Lakeflow loads a pipeline's source files.
        name = os.path.splitext(os.path.basename(path))[0]
        runpy.run_path(path, init_globals={"spark": spark}, run_name=name)
        sql = cdclake_pipeline.to_sql()
    except SystemExit as e:
        print(f"{argv[1]}: the file called sys.exit({e.code!r}) while it was being read",
              file=sys.stderr)
        return 2
    except cdclake_pipeline.Unsupported as e:
        line = _line_in(path, e.__traceback__)
        where = f"{argv[1]}:{line}" if line else argv[1]
        print(f"{where}: {e}", file=sys.stderr)
        return 2
    except SyntaxError:
        traceback.print_exc(limit=0)
        return 2
    except Exception:  # the file's own error: Python's message and where it was
        traceback.print_exc()
        return 2
    out.buffer.write(sql.encode("utf-8"))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
