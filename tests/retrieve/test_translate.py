from __future__ import annotations

from navicite.retrieve.translate import target_language


def test_other_language_chosen_by_size() -> None:
    assert target_language("ko", {"en": 900, "ko": 100}) == ("en", "")
    assert target_language("en", {"en": 900, "ko": 80, "ja": 120}) == ("ja", "")


def test_stray_detections_do_not_trigger_translation() -> None:
    target, reason = target_language("en", {"en": 5172, "de": 2, "nl": 2, "unknown": 40})
    assert target is None and "5%" in reason


def test_single_language_and_unknown_collections_skip() -> None:
    assert target_language("en", {"en": 10})[0] is None
    assert target_language("en", {}) == (None, "the collection's languages are unknown")
