from collections import OrderedDict


class Cache:
    """A small key-value cache that keeps the `maxsize` most recently used entries."""

    def __init__(self, maxsize=128):
        self.maxsize = maxsize
        self._data = OrderedDict()

    def get(self, key, default=None):
        if key not in self._data:
            return default
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key, value):
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.maxsize:
            self._data.popitem(last=False)

    def __len__(self):
        return len(self._data)
