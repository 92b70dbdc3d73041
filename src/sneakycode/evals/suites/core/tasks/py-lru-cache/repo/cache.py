class Cache:
    """A small key-value cache."""

    def __init__(self):
        self._data = {}

    def get(self, key, default=None):
        return self._data.get(key, default)

    def put(self, key, value):
        self._data[key] = value

    def __len__(self):
        return len(self._data)
