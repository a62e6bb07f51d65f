"""A small real tantivy collection for the retrieval tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from navicite import index as index_package
from navicite.config import Settings
from navicite.documents import Document
from navicite.index.base import LexicalIndex

DOCS = [
    ("d1", "Vitamin D supplementation and hip fracture in elderly women",
     "A randomised trial of cholecalciferol supplementation in elderly women found fewer hip fractures and higher bone density."),
    ("d2", "Falls prevention in older adults",
     "Exercise programmes reduce falls among older adults living in the community; fractures after falls also declined."),
    ("d3", "Bone density loss after menopause",
     "Bone mineral density decreases after menopause; osteoporosis raises the risk of fracture."),
    ("d4", "BRCA1 mutations and breast cancer risk",
     "Carriers of BRCA1 mutations have a high lifetime risk of breast and ovarian cancer."),
    ("d5", "Calcium intake and osteoporosis",
     "Dietary calcium with vitamin D slows osteoporosis in postmenopausal women and lowers fracture risk."),
    ("d6", "A review of image processing for radiographs",
     "We review image processing methods that detect fractures on radiographs of elderly patients."),
    ("d7", "Gut microbiome and obesity",
     "The gut microbiome differs between obese and lean individuals and affects energy harvest."),
    ("d8", "Statins and cardiovascular events",
     "Statin therapy lowers LDL cholesterol and reduces cardiovascular events in high-risk patients."),
    ("d9", "Vitamin D receptor signalling in immune cells",
     "The vitamin D receptor regulates innate immunity in macrophages."),
    ("d10", "Hip fracture surgery outcomes",
     "Early surgery after hip fracture lowers mortality in elderly patients."),
    ("k1", "비타민 D 보충과 노인 골절", "노인에서 비타민 D 보충은 골절 위험을 낮추고 골밀도를 높였다."),
    ("k2", "골다공증 치료의 최신 동향", "골다공증 환자에서 골밀도 개선과 골절 예방을 위한 약물 치료를 다룬다."),
]


def build_index(home: Path) -> LexicalIndex:
    settings = Settings(home=home)
    idx = index_package.create(settings)
    idx.upsert(Document(doc_id, title, abstract) for doc_id, title, abstract in DOCS)
    return idx


@pytest.fixture(scope="session")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> LexicalIndex:
    return build_index(tmp_path_factory.mktemp("mpr-index"))
