"""Reading documents into the collection: loaders and the ingest runner (cutting text is :mod:`navicite.text`)."""

from navicite.ingest.base import FORMATS, Failure
from navicite.ingest.loaders import load
from navicite.ingest.records import FieldMapping
from navicite.ingest.runner import IngestProgress, IngestRunner, IngestSummary
from navicite.ingest.sample import sample_documents, sample_path, sample_questions

__all__ = [
    "FORMATS",
    "Failure",
    "FieldMapping",
    "IngestProgress",
    "IngestRunner",
    "IngestSummary",
    "load",
    "sample_documents",
    "sample_path",
    "sample_questions",
]
