"""`read_objects(data, filename)`: the objects of an upload or a file, whatever its format, bounded.

Accepted: multi-document YAML, JSON (one object, a `List`, or an array), `kubectl get -A -o yaml|json`
Lists (`List` and typed `*List`s are flattened, as `kubectl apply` does), and `.tar.gz`/`.tgz` archives of
such files (recognised by the gzip magic bytes, not the name). YAML goes through the engine's loader
(evaluator/admission/documents.py), so alias bombs are refused as go-yaml refuses them
(yaml_aliases.py). Archives are read in memory, never extracted: a member with an absolute or `..` path,
a link or device, more than MAX_MEMBERS members, a member over MAX_MEMBER_BYTES or more than MAX_TOTAL_BYTES
in all is refused with an error naming it. Never raises: what cannot be read is an error entry
`{severity, message, source, document, line, column}` (`source`: the file name or `archive.tgz:path`). A gzip file that holds no tar is read as one compressed
YAML/JSON file, inflated no further than MAX_TOTAL_BYTES.
"""

from __future__ import annotations

import io
import json
import posixpath
import tarfile
import zlib
from typing import Any

from evaluator.admission.documents import LoadError, load_documents, load_objects

__all__ = ["read_objects", "MAX_TOTAL_BYTES", "MAX_MEMBER_BYTES", "MAX_MEMBERS"]

MAX_TOTAL_BYTES = 256 * 1024 * 1024  # decompressed text in all (a 100,000-object dump is ~150 MB of YAML)
MAX_MEMBER_BYTES = 64 * 1024 * 1024
MAX_MEMBERS = 10_000
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
GZIP_MAGIC = b"\x1f\x8b"


def read_objects(data: bytes | str, filename: str | None = None) -> tuple[list[dict], list[dict]]:
    """(objects, errors) from the bytes or text of one file or upload named `filename`."""
    source = filename or "<input>"
    if isinstance(data, str):
        return _read_text(data, source)
    if not isinstance(data, bytes | bytearray):
        return [], [_error(f"input must be bytes or text, not {type(data).__name__}", source)]
    if bytes(data[:2]) == GZIP_MAGIC:
        return _read_archive(bytes(data), source)
    if len(data) > MAX_TOTAL_BYTES:
        return [], [_error(f"file is larger than {MAX_TOTAL_BYTES:,} bytes", source)]
    text, problem = _decode(bytes(data))
    if problem:
        return [], [_error(problem, source)]
    return _read_text(text, source)


def _error(message: str, source: str, **where: Any) -> dict:
    return {"severity": "error", "message": message, "source": source, "document": None, "line": None, **where}


def _decode(data: bytes) -> tuple[str, str | None]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return "", f"not UTF-8 text (byte {exc.start}): not a YAML or JSON file"
    if "\x00" in text:
        return "", "not a text file (it contains NUL bytes): not a YAML or JSON file"
    return text, None


def _read_text(text: str, source: str) -> tuple[list[dict], list[dict]]:
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:  # JSON first: much faster than YAML for a big `kubectl get -o json` dump, and alias-free
            data = json.loads(text)
        except (ValueError, RecursionError):
            pass  # the YAML loader reports the problem with its line and column
        else:
            items = data if isinstance(data, list) else [data]
            records, problems = load_objects(items, source)
            return [r.data for r in records], [_load_error(p, source) for p in problems]
    records, problems = load_documents(text, source, positions=False)
    return [r.data for r in records], [_load_error(p, source) for p in problems]


def _load_error(problem: LoadError, source: str) -> dict:
    return {"severity": "error", **problem.to_dict(), "source": problem.source or source}


def _unsafe(name: str) -> bool:
    normal = posixpath.normpath(name)
    return name.startswith(("/", "\\")) or normal == ".." or normal.startswith("../") or "\\" in name or ":" in name


def _read_archive(data: bytes, archive: str) -> tuple[list[dict], list[dict]]:
    objects: list[dict] = []
    errors: list[dict] = []
    total = members = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r|gz") as tar:
            for member in tar:
                members += 1
                if members > MAX_MEMBERS:
                    errors.append(
                        _error(f"archive has more than {MAX_MEMBERS:,} members: the rest is not read", archive)
                    )
                    break
                where = f"{archive}:{member.name}"
                if member.isdir():
                    continue
                if _unsafe(member.name):
                    errors.append(_error(f"unsafe path in archive: {member.name!r} (absolute or outside it)", where))
                    continue
                if not member.isfile():
                    errors.append(_error("not a regular file (link or device): not read", where))
                    continue
                if not member.name.lower().endswith(MANIFEST_SUFFIXES):
                    continue  # READMEs, charts' templates... only manifests are objects
                if member.size > MAX_MEMBER_BYTES:
                    errors.append(_error(f"member is larger than {MAX_MEMBER_BYTES:,} bytes: not read", where))
                    continue
                total += member.size
                if total > MAX_TOTAL_BYTES:
                    errors.append(
                        _error(f"archive holds more than {MAX_TOTAL_BYTES:,} bytes: the rest is not read", where)
                    )
                    break
                handle = tar.extractfile(member)
                text, problem = _decode(handle.read() if handle else b"")
                if problem:
                    errors.append(_error(problem, where))
                    continue
                found, problems = _read_text(text, where)
                objects += found
                errors += problems
    except tarfile.ReadError as exc:
        if members == 0:  # gzip, but not of a tar: a compressed dump (`kubectl get -o yaml | gzip`)
            return _read_gzip_text(data, archive)
        errors.append(_error(f"not a readable .tar.gz archive: {exc}", archive))
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        errors.append(_error(f"not a readable .tar.gz archive: {exc}", archive))
    return objects, errors


def _read_gzip_text(data: bytes, source: str) -> tuple[list[dict], list[dict]]:
    """A gzip-compressed YAML/JSON file, inflated no further than MAX_TOTAL_BYTES."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        raw = inflater.decompress(data, MAX_TOTAL_BYTES + 1)
    except zlib.error as exc:
        return [], [_error(f"not a readable gzip file: {exc}", source)]
    if len(raw) > MAX_TOTAL_BYTES:
        return [], [_error(f"file is larger than {MAX_TOTAL_BYTES:,} bytes once decompressed", source)]
    if not inflater.eof:
        return [], [_error("not a readable gzip file: it ends early", source)]
    text, problem = _decode(raw)
    if problem:
        return [], [_error(problem, source)]
    return _read_text(text, source)
