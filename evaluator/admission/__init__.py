"""Admission requests, document loading, API defaulting/validation and matching shared by VAP and MAP."""
