"""The one error type services raise; the API and the WebSocket consumer turn it into the error shape."""

from __future__ import annotations


class ServiceError(Exception):
    """A failure the client caused or can act on, with an HTTP status and, where known, a location."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        *,
        document=None,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.document = document
        self.path = path
        self.line = line
        self.column = column

    def __reduce__(self):  # raised in evaluation workers and sent back to the server
        return (_rebuild, (self.code, self.message, self.status, self.document, self.path, self.line, self.column))

    def as_dict(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "document": self.document,
            "path": self.path,
            "line": self.line,
            "column": self.column,
        }


def _rebuild(code, message, status, document, path, line, column) -> ServiceError:
    return ServiceError(code, message, status, document=document, path=path, line=line, column=column)


def not_found(what: str) -> ServiceError:
    return ServiceError("not_found", f"{what} not found", 404)


def forbidden() -> ServiceError:
    return ServiceError("forbidden", "a valid edit token is required to change this project", 403)
