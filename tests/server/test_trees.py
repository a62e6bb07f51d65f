"""``GET /v1/tree/{id}``: a stored knowledge tree, or a clear 404."""

from __future__ import annotations

from navicite.navigate.store import STORE_FILE_NAME, TreeStore, build_params
from navicite.navigate.tree import KnowledgeTree, Node, Paragraph, SegmentRef


def test_no_tree_store_is_404_and_creates_nothing(client, sample_settings):
    response = client.get("/v1/tree/whatever")
    assert response.status_code == 404
    assert "no knowledge tree" in response.json()["detail"]
    assert not (sample_settings.home / STORE_FILE_NAME).exists()


def test_stored_tree_is_served_and_dropped_with_its_document(client, sample_settings):
    client.post("/v1/documents", json={"records": [{"id": "long-doc", "title": "Long", "text": "two words"}]})
    leaf = Node("0.1", "Only topic", [Paragraph("Summary <b>bold</b>.", [0])], segments=[0])
    tree = KnowledgeTree("long-doc", "fp", Node("0", "Long", children=[leaf]), [SegmentRef(0, 0, 2, "two words")])
    TreeStore.open(sample_settings).put(tree, build_params(sample_settings))

    served = client.get("/v1/tree/long-doc").json()
    assert served["root"]["children"][0]["paragraphs"][0]["text"] == "Summary <b>bold</b>."
    assert client.get("/v1/tree/other").status_code == 404

    assert client.delete("/v1/documents/long-doc").status_code == 200
    assert TreeStore.open(sample_settings).get("long-doc") is None
