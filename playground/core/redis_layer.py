"""The Redis channel layer with a bounded connection pool that waits for a free connection.

channels_redis builds a plain redis-py pool, which opens a connection per concurrent command without limit,
or, given `max_connections`, fails the command beyond it ("Too many connections") even while Redis is well.
A `BlockingConnectionPool` bounds the connections and makes a burst wait (up to its `timeout`) for one to
come back; with a short `socket_connect_timeout` an unreachable Redis fails a command within it instead of
hanging, and the consumers tell their clients `unavailable` (playground/ws.py).
"""

from __future__ import annotations

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool


class BoundedRedisChannelLayer(RedisChannelLayer):
    def create_pool(self, index: int) -> BlockingConnectionPool:
        options = dict(self.hosts[index])  # {"address": url, pool and socket options} (config.py)
        return BlockingConnectionPool.from_url(options.pop("address"), **options)
