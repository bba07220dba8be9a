"""The Celery worker: the app (`worker.app`) and its tasks (`worker.tasks`), thin wrappers around pbem.

Start it with `pbem worker` (or `celery -A worker.app worker`), the periodic sweep with
`pbem beat`; `pbem run` starts both beside the web server and the mail listener.
"""
