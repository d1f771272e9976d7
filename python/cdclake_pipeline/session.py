"""The `spark` a pipeline file sees: readers and the configuration (`--var` values)."""

from cdclake_pipeline import DataReader, Unsupported


class RuntimeConfig:
    def __init__(self, values):
        self._values = dict(values)

    def get(self, key, default=None):
        if key in self._values:
            return self._values[key]
        if default is None:
            raise Unsupported(f"spark.conf.get('{key}') without a value",
                              f"give it with --var {key}=VALUE, or pass a default")
        return default

    def set(self, key, value):
        self._values[key] = str(value)


class SparkSession:
    def __init__(self, conf=None):
        self.conf = RuntimeConfig(conf or {})

    @property
    def readStream(self):
        return DataReader(True, self.conf)

    @property
    def read(self):
        return DataReader(False, self.conf)

    def table(self, name):
        return self.read.table(name)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise Unsupported(f"spark.{attr}",
                          "a pipeline file may use spark.readStream, spark.read, spark.table and "
                          "spark.conf.get")
