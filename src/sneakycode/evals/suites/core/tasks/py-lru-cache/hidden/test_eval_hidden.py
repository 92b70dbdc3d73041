import unittest

from cache import Cache


class CacheTest(unittest.TestCase):
    def test_default_size(self):
        cache = Cache()
        for i in range(200):
            cache.put(i, i)
        self.assertEqual(len(cache), 128)
        self.assertIsNone(cache.get(0))
        self.assertEqual(cache.get(199), 199)

    def test_least_recently_used_goes(self):
        cache = Cache(maxsize=2)
        cache.put("a", 1)
        cache.put("b", 2)
        self.assertEqual(cache.get("a"), 1)
        cache.put("c", 3)
        self.assertIsNone(cache.get("b"))
        self.assertEqual((cache.get("a"), cache.get("c")), (1, 3))

    def test_update_counts_as_use(self):
        cache = Cache(maxsize=2)
        cache.put("a", 1)
        cache.put("b", 2)
        cache.put("a", 10)
        cache.put("c", 3)
        self.assertEqual(cache.get("a"), 10)
        self.assertIsNone(cache.get("b"))


if __name__ == "__main__":
    unittest.main()
