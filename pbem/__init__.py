"""pbem: the service. Web app, database models, the game service, mail, archives and the CLI.

Only this package touches the database or mail. It uses `engine` for the rules and
`renderers` for pictures; `worker` calls into it, never the other way round.
"""

__version__ = "0.1.0"
