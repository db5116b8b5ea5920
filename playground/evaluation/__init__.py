"""Where evaluations run: one supervised pool of worker processes (pool.py) running Django-free jobs (jobs.py).

Importing this package imports nothing: workers import only ``jobs`` and ``worker``, never Django.
"""
