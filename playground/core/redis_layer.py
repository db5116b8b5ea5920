"""The Redis channel layer with a bounded connection pool that waits for a free connection.

channels_redis builds a plain redis-py pool, which opens a connection per concurrent command without limit,
or, given `max_connections`, fails the command beyond it ("Too many connections") even while Redis is well.
A `BlockingConnectionPool` bounds the connections and makes a burst wait (up to its `timeout`) for one to
come back; with a short `socket_connect_timeout` an unreachable Redis fails a command within it instead of
hanging, and the consumers tell their clients `unavailable` (playground/ws.py).

After each message channels_redis drops its in-flight copy in a detached task that nobody awaits; when Redis
went away in between, that task's error would be logged with a traceback as "never retrieved". Here it is an
outage line: the copy is gone with a restarted Redis, or delivered once more by a Redis that kept it.
"""

from __future__ import annotations

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool

from playground.core import outage


class BoundedRedisChannelLayer(RedisChannelLayer):
    def create_pool(self, index: int) -> BlockingConnectionPool:
        options = dict(self.hosts[index])  # {"address": url, pool and socket options} (config.py)
        return BlockingConnectionPool.from_url(options.pop("address"), **options)

    async def _clean_receive_backup(self, index: int, channel: str) -> None:
        try:
            await super()._clean_receive_backup(index, channel)
        except Exception as exc:
            if not outage.is_outage(exc):
                raise
            outage.report("channel layer", exc)
