"""``POST /v1/search`` over the bundled sample."""

from __future__ import annotations


def test_free_text_search_finds_the_sample_paper(client):
    response = client.post("/v1/search", json={"query": "affective events discourse relations", "k": 3})
    assert response.status_code == 200
    body = response.json()
    assert len(body["hits"]) == 3
    top = body["hits"][0]
    assert "affective events" in top["title"].lower()
    assert top["score"] >= body["hits"][1]["score"] >= body["hits"][2]["score"]
    assert "**" in top["snippet"]
    assert body["parsed"]


def test_boolean_search_and_syntax_error_position(client):
    ok = client.post("/v1/search", json={"query": 'title:"affective events" AND discourse', "boolean": True})
    assert ok.status_code == 200 and ok.json()["hits"]
    bad = client.post("/v1/search", json={"query": "vitamin AND (", "boolean": True})
    assert bad.status_code == 400
    assert bad.json()["error"] == "QuerySyntaxError"
    assert isinstance(bad.json()["position"], int)


def test_query_without_words_matches_nothing(client):
    body = client.post("/v1/search", json={"query": "?!…"}).json()
    assert body["hits"] == [] and body["parsed"] == ""


def test_bad_search_bodies_are_422_naming_the_field(client):
    for body in ({"query": "x", "k": 0}, {"query": ""}, {"q": "x"}, {"query": "x", "extra": 1}):
        response = client.post("/v1/search", json=body)
        assert response.status_code == 422, body
        assert response.json()["detail"].startswith("bad request: body.")
