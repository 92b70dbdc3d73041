import unittest

from client import load_config


class ConfigTest(unittest.TestCase):
    def test_values(self):
        config = load_config()
        self.assertEqual(config["retries"], 5)
        self.assertEqual(config["timeout"], 30)
        self.assertEqual(config["base_url"], "https://api.example.com")
        self.assertEqual(config["user_agent"], "acme-client/1.0")
        self.assertEqual(set(config), {"base_url", "retries", "timeout", "user_agent"})


if __name__ == "__main__":
    unittest.main()
