"""NaviRAG: knowledge trees for long documents and the agent that navigates them.

- :class:`TreeBuilder` builds, validates and stores the trees of a collection's long documents;
- :class:`TreeStore` keeps them in SQLite in the data directory, one row per document;
- :class:`Navigator` walks a tree for a question and returns :class:`Evidence` with paths.
"""

from navicite.navigate.build import BuildOutcome, TreeBuilder
from navicite.navigate.evidence import Evidence, Navigation, Note, TraceStep
from navicite.navigate.navigator import Navigator
from navicite.navigate.organise import BuildProgress, Organiser
from navicite.navigate.store import TreeStore, build_params
from navicite.navigate.tree import BuildCost, KnowledgeTree, Node, Paragraph, SegmentRef
from navicite.navigate.validate import TreeInvariantError, check, problems

__all__ = [
    "BuildCost",
    "BuildOutcome",
    "BuildProgress",
    "Evidence",
    "KnowledgeTree",
    "Navigation",
    "Navigator",
    "Node",
    "Note",
    "Organiser",
    "Paragraph",
    "SegmentRef",
    "TraceStep",
    "TreeBuilder",
    "TreeInvariantError",
    "TreeStore",
    "build_params",
    "check",
    "problems",
]
