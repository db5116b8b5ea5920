"""Uploaded folders: a zip or tar archive read into {relative path: text}, bounded; and folders written out.

Refused: more than MAX_FILES files, more than MAX_TOTAL bytes unpacked, a member larger than MAX_TEXT,
absolute paths or `..` (path traversal), links and devices. Only text files are kept (others are skipped)."""

from __future__ import annotations

import io
import posixpath
import tarfile
import zipfile

from evaluator.formats.bounded_yaml import MAX_TEXT, FormatError, load_one
from evaluator.formats.objects import objects_of

MAX_FILES = 200
MAX_TOTAL = 8 * 1024 * 1024
TEXT_SUFFIXES = (".yaml", ".yml", ".json")


def _safe_path(name: str) -> str:
    path = name.replace("\\", "/")
    normal = posixpath.normpath(path)
    if path.startswith("/") or normal == ".." or normal.startswith("../") or ":" in path.split("/")[0]:
        raise FormatError(f"archive member {name!r} points outside the folder")
    return normal


def _add(files: dict[str, str], name: str, data: bytes, total: list[int]) -> None:
    total[0] += len(data)
    if len(data) > MAX_TEXT or total[0] > MAX_TOTAL:
        raise FormatError(
            f"archive too large (at most {MAX_TOTAL // 1024 // 1024} MiB unpacked, {MAX_TEXT // 1024} KiB per file)"
        )
    if name.endswith(TEXT_SUFFIXES):
        try:
            files[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(f"{name}: not UTF-8 text") from None


def read_archive(data: bytes) -> dict[str, str]:
    """{path: text} of a zip or tar (gzip or not) archive's YAML/JSON files."""
    files: dict[str, str] = {}
    total = [0]
    if zipfile.is_zipfile(io.BytesIO(data)):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            if len(members) > MAX_FILES:
                raise FormatError(f"archive has more than {MAX_FILES} files")
            for member in members:
                name = _safe_path(member.filename)
                if member.file_size > MAX_TEXT:
                    raise FormatError(f"{name}: larger than {MAX_TEXT // 1024} KiB")
                with archive.open(member) as handle:
                    _add(files, name, handle.read(MAX_TEXT + 1), total)
        return files
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except tarfile.TarError:
        raise FormatError("not a zip or tar archive") from None
    with tar:
        count = 0
        for entry in tar:
            if entry.isdir():
                continue
            count += 1
            if count > MAX_FILES:
                raise FormatError(f"archive has more than {MAX_FILES} files")
            name = _safe_path(entry.name)
            if not entry.isfile():
                raise FormatError(f"archive entry {name!r} is a link or device, which is refused")
            if entry.size > MAX_TEXT:
                raise FormatError(f"{name}: larger than {MAX_TEXT // 1024} KiB")
            handle = tar.extractfile(entry)
            _add(files, name, handle.read(MAX_TEXT + 1) if handle else b"", total)
    return files


def write_zip(files: dict[str, str], root: str) -> bytes:
    """The folder as a zip archive under `root/`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in sorted(files.items()):
            archive.writestr(f"{root}/{name}", text)
    return buffer.getvalue()


def resolve(files: dict[str, str], base: str, name: str) -> str | None:
    """The text of `name` relative to folder `base` inside the uploaded folder (None when absent)."""
    path = posixpath.normpath(posixpath.join(base, name)) if base else posixpath.normpath(name)
    return files.get(path)


def suite_path(files: dict[str, str], file_name: str) -> str:
    """The path of the `file_name` nearest the folder's top (a suite's own file, not a nested one's);
    FormatError when there is none."""
    found = sorted((p for p in files if posixpath.basename(p) == file_name), key=lambda p: (p.count("/"), p))
    if not found:
        raise FormatError(f"no {file_name} in the folder")
    return found[0]


def suite_file(files: dict[str, str], file_name: str, what: str) -> tuple[str, str, dict]:
    """(path, folder, content) of the `file_name` nearest the folder's top; FormatError when there is none or
    it is not a mapping (`what`: what it should be)."""
    path = suite_path(files, file_name)
    content = load_one(files[path], path)
    if not isinstance(content, dict):
        raise FormatError(f"{path}: not {what}")
    return path, posixpath.dirname(path), content


def listed_objects(files: dict[str, str], base: str, names: object, what: str, listing: str) -> list[dict]:
    """The objects of the files a test file (`listing`) names under `what`, relative to its folder `base`."""
    objects: list[dict] = []
    for name in names if isinstance(names, list) else []:
        text = resolve(files, base, str(name))
        if text is None:
            raise FormatError(f"{listing}: {what} file {name!r} is not in the folder")
        objects.extend(d for d in objects_of(text, str(name)) if isinstance(d, dict))
    return objects
