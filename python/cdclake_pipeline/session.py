"""The `spark` a pipeline file sees: readers and the configuration (`--var` values)."""

from cdclake_pipeline import DataReader, Unsupported


_NO_DEFAULT = object()


class RuntimeConfig:
    def __init__(self, values):
        self._values = dict(values)

    def get(self, key, default=_NO_DEFAULT):
        if key in self._values:
            return self._values[key]
        if default is _NO_DEFAULT:
            raise Unsupported(f"spark.conf.get('{key}') without a value",
                              f"give it with --var {key}=VALUE, or pass a default")
        return default

    def set(self, key, value):
        self._values[key] = str(value)


class _Builder:
    """SparkSession.builder...getOrCreate(): the pipeline's one session."""

    def appName(self, name):
        return self

    def config(self, *args, **kwargs):
        return self

    def getOrCreate(self):
        return SparkSession.active()


class SparkSession:
    _active = None
    builder = _Builder()

    def __init__(self, conf=None):
        self.conf = RuntimeConfig(conf or {})
        SparkSession._active = self

    @classmethod
    def active(cls):
        return cls._active if cls._active is not None else cls()

    getActiveSession = active

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
