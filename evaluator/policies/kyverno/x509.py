"""`x509_decode`: the JSON form of Go's x509.Certificate / CertificateRequest for the fields policies read
(RSA keys only, as Kyverno requires). Uses the `cryptography` package."""

from __future__ import annotations

import base64
import datetime as dt
import warnings


class X509Error(Exception):
    pass


def _name(name) -> dict:
    from cryptography.x509.oid import NameOID

    def values(oid):
        return [a.value for a in name.get_attributes_for_oid(oid)] or None

    cn = values(NameOID.COMMON_NAME)
    serial = values(NameOID.SERIAL_NUMBER)
    return {
        "Country": values(NameOID.COUNTRY_NAME),
        "Organization": values(NameOID.ORGANIZATION_NAME),
        "OrganizationalUnit": values(NameOID.ORGANIZATIONAL_UNIT_NAME),
        "Locality": values(NameOID.LOCALITY_NAME),
        "Province": values(NameOID.STATE_OR_PROVINCE_NAME),
        "StreetAddress": values(NameOID.STREET_ADDRESS),
        "PostalCode": values(NameOID.POSTAL_CODE),
        "SerialNumber": serial[0] if serial else "",
        "CommonName": cn[0] if cn else "",
        "Names": [{"Type": [int(x) for x in a.oid.dotted_string.split(".")], "Value": a.value} for a in name],
        "ExtraNames": None,
    }


def _time(t: dt.datetime) -> str:
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _rsa(public_key) -> dict:
    from cryptography.hazmat.primitives.asymmetric import rsa

    if not isinstance(public_key, rsa.RSAPublicKey):
        raise X509Error("certificate should use rsa algorithm")
    numbers = public_key.public_numbers()
    return {"N": str(numbers.n), "E": numbers.e}


def decode(text: str) -> dict:
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives.serialization import Encoding
    except ImportError as err:  # pragma: no cover - dependency missing
        raise X509Error(f"x509_decode needs the cryptography package: {err}") from None
    data = text.encode()
    if b"-----BEGIN CERTIFICATE REQUEST-----" in data:
        try:
            csr = x509.load_pem_x509_csr(data)
        except ValueError as err:
            raise X509Error(str(err)) from None
        return {
            "Raw": base64.b64encode(csr.public_bytes(Encoding.DER)).decode(),
            "Version": 0,
            "PublicKey": _rsa(csr.public_key()),
            "Subject": _name(csr.subject),
        }
    if b"-----BEGIN CERTIFICATE-----" not in data:
        raise X509Error("failed to decode PEM block")
    try:
        with warnings.catch_warnings():  # Go accepts non-positive serial numbers; so do we
            warnings.simplefilter("ignore")
            cert = x509.load_pem_x509_certificate(data)
            serial = cert.serial_number
    except ValueError as err:
        raise X509Error(str(err)) from None
    out = {
        "Raw": base64.b64encode(cert.public_bytes(Encoding.DER)).decode(),
        "Version": cert.version.value + 1,
        "SerialNumber": serial,
        "Issuer": _name(cert.issuer),
        "Subject": _name(cert.subject),
        "NotBefore": _time(
            cert.not_valid_before_utc if hasattr(cert, "not_valid_before_utc") else cert.not_valid_before
        ),
        "NotAfter": _time(cert.not_valid_after_utc if hasattr(cert, "not_valid_after_utc") else cert.not_valid_after),
        "PublicKey": _rsa(cert.public_key()),
        "DNSNames": None,
        "EmailAddresses": None,
        "IPAddresses": None,
        "URIs": None,
        "IsCA": False,
        "BasicConstraintsValid": False,
    }
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        out["DNSNames"] = san.get_values_for_type(x509.DNSName) or None
        out["EmailAddresses"] = san.get_values_for_type(x509.RFC822Name) or None
        out["IPAddresses"] = [str(i) for i in san.get_values_for_type(x509.IPAddress)] or None
        out["URIs"] = san.get_values_for_type(x509.UniformResourceIdentifier) or None
    except x509.ExtensionNotFound:
        pass
    try:
        bc = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        out["IsCA"], out["BasicConstraintsValid"] = bc.ca, True
    except x509.ExtensionNotFound:
        pass
    return out
