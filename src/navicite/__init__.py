"""navicite: question answering over document collections with sentence-level citations."""

from navicite.config import Settings, load_settings
from navicite.documents import Document, Segment

__all__ = ["Document", "Segment", "Settings", "load_settings"]
__version__ = "0.1.0"
