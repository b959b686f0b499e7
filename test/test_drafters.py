"""Draft sources: n-gram datastore (static file + bounded history), context look-up, heads."""

import numpy as np
import pytest

from globalgen_ros.decoding.datastore import NgramDatastore, count_ngrams
from globalgen_ros.decoding.drafters import ContextDrafter, CopyDrafter, DatastoreDrafter, DraftContext, HeadsDrafter
from globalgen_ros.decoding.templates import ReplyTemplates, TemplateDrafter

END = 7


def test_count_ngrams_top_next_and_pruning():
    seqs = [[2, 10, 11, 12, END]] * 3 + [[2, 10, 11, 13, END]]
    table = count_ngrams(seqs, max_n=3, min_count=2)
    nxt, prob, total = table[(10, 11)]
    assert nxt == (12, 13) and total == 4
    assert prob == pytest.approx((0.75, 0.25))
    assert (11, 13) not in table  # seen once: pruned


def test_datastore_save_load_roundtrip(tmp_path):
    seqs = [[2, 10, 11, 12, END], [2, 10, 11, 12, END], [2, 20, 21, END], [2, 20, 21, END]]
    store = NgramDatastore.build(seqs, max_n=4, min_count=2)
    path = tmp_path / "drafts.npz"
    store.save(path)
    loaded = NgramDatastore.load(path)
    assert loaded.static.keys() == store.static.keys()
    for key, (toks, probs, total) in store.static.items():
        assert loaded.static[key][0] == toks and loaded.static[key][2] == total
        assert loaded.static[key][1] == pytest.approx(probs)
    store.copy_prior = {40: 0.9, 41: 0.25}
    store.save(path)
    assert NgramDatastore.load(path).copy_prior == pytest.approx({40: 0.9, 41: 0.25})


def test_history_is_bounded_and_forgets_exactly():
    store = NgramDatastore(max_n=3, history=2)
    store.add([2, 30, 31, END])
    assert store.lookup([2, 30])[1] == (31,)
    store.add([2, 40, 41, END])
    store.add([2, 50, 51, END])  # evicts the first reply
    assert store.lookup([9, 30])[0] == 0
    assert store.lookup([2, 50])[1] == (51,)
    assert (30,) not in store.dynamic


def test_datastore_drafter_walks_longest_context():
    store = NgramDatastore.build([[2, 10, 11, 12, 13, END]] * 2, max_n=4, min_count=2)
    chains = DatastoreDrafter(store, END).propose(DraftContext(tokens=[0, 1, 5, 2, 10], n_prompt=4, max_depth=8))
    assert chains[0].tokens == [11, 12, 13, END]
    assert chains[0].tags[0] == "ds2"


def test_context_drafter_copies_from_prompt_and_stops_at_prompt_tokens():
    drafter = ContextDrafter(max_n=3, stop_ids=(2,))
    tokens = [0, 1, 40, 41, 42, 43, 2, 3, 40, 41]
    chains = drafter.propose(DraftContext(tokens=tokens, n_prompt=7, max_depth=5))
    assert chains[0].tokens == [42, 43]  # the copy ends before <|assistant|> (id 2)
    assert chains[0].tags[0] == "ctx2"
    tokens += [42]  # appended tokens are indexed incrementally
    chains = drafter.propose(DraftContext(tokens=tokens, n_prompt=7, max_depth=5))
    assert chains[0].tokens == [43] and chains[0].tags[0] == "ctx3"


def test_heads_drafter_aligns_heads_with_pending_tokens():
    top = np.array([[11, 12], [21, 22], [31, 32]])
    prob = np.array([[0.9, 0.05], [0.8, 0.1], [0.7, 0.2]])
    calls = []

    def heads():
        calls.append(1)
        return top, prob

    # heads computed on token index 4; token 5 (bonus) is pending -> head 0 predicts index 6 = depth 1
    ctx = DraftContext(tokens=list(range(6)), n_prompt=2, max_depth=8, head_base=4, n_heads=3, heads=heads)
    chains = HeadsDrafter(topk=2, alt_depth=3).propose(ctx)
    assert chains[0].tokens == [11, 21, 31]
    assert [c.tokens for c in chains[1:]] == [[12, 21, 31], [11, 22, 31], [11, 21, 32]]
    assert [c.tokens for c in HeadsDrafter(topk=2).propose(ctx)] == [[11, 21, 31], [12, 21, 31]]
    ctx.tokens = list(range(7))  # one more pending token (schema-forced): head 0 is already covered
    assert HeadsDrafter(topk=1).propose(ctx)[0].tokens == [21, 31]
    ctx.tokens = list(range(9))  # every head position is already accepted: the heads are not even run
    n = len(calls)
    assert HeadsDrafter(topk=1).propose(ctx) == [] and len(calls) == n
    assert HeadsDrafter(topk=1).propose(DraftContext(tokens=[0], n_prompt=1, max_depth=4)) == []


def test_reply_templates_take_values_out_and_put_new_ones_in(tmp_path):
    VALUE, SLOT, REPLY, INTENT, USER = 5, 4, 6, 3, 1
    tpl = ReplyTemplates(VALUE, (SLOT, REPLY, END))
    # <intent> nav <slot> dest <value> [40 41] <reply> ... 40 41 . <end>   (the value reappears in the reply)
    for value in ([40, 41], [50], [60, 61, 62]):
        tpl.add("zh", [INTENT, 20, SLOT, 21, VALUE, *value], [30, 31, *value, 32, END])
    tpl.add("zh", [INTENT, 22, SLOT, 23, VALUE, 70], [33, END])  # an enum value worded otherwise: stays literal
    assert tpl.candidates("zh", [INTENT, 20, SLOT, 21, VALUE, 90, 91]) == [([30, 31, 90, 91, 32, END], 1.0)]
    assert tpl.candidates("zh", [INTENT, 22, SLOT, 23, VALUE, 70]) == [([33, END], 1.0)]
    assert tpl.candidates("zh", [INTENT, 22, SLOT, 23, VALUE, 71]) == []
    assert tpl.candidates("en", [INTENT, 20, SLOT, 21, VALUE, 90]) == []
    store = NgramDatastore(templates=tpl)
    store.save(tmp_path / "d.npz")
    assert NgramDatastore.load(tmp_path / "d.npz").templates.table == tpl.table

    cjk = np.zeros(100, bool)
    cjk[80] = True  # the user said a CJK token: the reply is Chinese
    drafter = TemplateDrafter(tpl, REPLY, USER, 2, cjk)
    prompt = [0, USER, 80, 90, 91, 2]
    out = [INTENT, 20, SLOT, 21, VALUE, 90, 91]
    ctx = DraftContext(tokens=prompt + out, n_prompt=len(prompt), max_depth=16)
    assert drafter.propose(ctx)[0].tokens == [REPLY, 30, 31, 90, 91, 32, END]  # <|reply|> may come next
    ctx = DraftContext(tokens=prompt + out + [REPLY, 30], n_prompt=len(prompt), max_depth=3)
    chain = drafter.propose(ctx)[0]
    assert chain.tokens == [31, 90, 91] and chain.tags[0] == "tpl"
    ctx = DraftContext(tokens=prompt + out + [REPLY, 33], n_prompt=len(prompt), max_depth=8)
    assert drafter.propose(ctx) == []  # the reply so far left every template


def test_template_drafter_follows_the_reply_said_so_far_beyond_the_top_candidates():
    VALUE, SLOT, REPLY, INTENT, USER = 5, 4, 6, 3, 1
    tpl = ReplyTemplates(VALUE, (SLOT, REPLY, END))
    header = [INTENT, 20]  # e.g. `none`: one header, many replies
    for reply, n in (([30, 31, END], 50), ([32, 33, END], 40), ([34, END], 30), ([30, 35, 36, END], 5)):
        for _ in range(n):
            tpl.add("en", header, reply)
    drafter = TemplateDrafter(tpl, REPLY, USER, 2, np.zeros(100, bool), top=3)
    prompt = [0, USER, 80, 2]
    at_reply = drafter.propose(DraftContext(tokens=prompt + header + [REPLY], n_prompt=len(prompt), max_depth=8))
    assert [c.tokens for c in at_reply] == [[30, 31, END], [32, 33, END], [34, END]]  # the header's top 3
    # After 30 only two replies agree, the rarest one included; their shares are renormalised between them.
    said = drafter.propose(DraftContext(tokens=prompt + header + [REPLY, 30], n_prompt=len(prompt), max_depth=8))
    assert [c.tokens for c in said] == [[31, END], [35, 36, END]]
    assert said[0].raw[0] == pytest.approx(50 / 55) and said[1].raw[0] == pytest.approx(5 / 55)


def test_copy_drafter_copies_values_from_likely_starts_to_likely_ends():
    user, assistant, value, reply = 1, 2, 5, 6
    prior = {40: 0.9, 41: 0.3}  # e.g. "to" and "the": a value likely starts after them
    end_prior = {53: 0.8, assistant: 0.4}  # e.g. "please": a value likely ends before it
    # <|user|> go 40 a b 41 c 53 <|assistant|> <|intent|> nav <|slot|> dest <|value|>
    prompt = [user, 30, 40, 50, 51, 41, 52, 53, assistant]
    tokens = prompt + [3, 60, 4, 61, value]
    drafter = CopyDrafter(prior, end_prior, value, user, assistant, reply, max_chains=3)
    chains = drafter.propose(DraftContext(tokens=tokens, n_prompt=len(prompt), max_depth=8))
    assert [c.tokens for c in chains] == [[50, 51, 41, 52, reply], [52, reply]]  # best start first, then <|reply|>
    assert chains[0].raw[0] == pytest.approx(0.9) and chains[0].raw[-1] == pytest.approx(0.8)
    assert chains[0].tags == ["cp", "cp+", "cp+", "cp+", "cp$"]
    assert drafter.propose(DraftContext(tokens=tokens[:-1], n_prompt=len(prompt), max_depth=8)) == []
    extended = DraftContext(tokens=tokens[:-1], n_prompt=len(prompt), max_depth=8, extra=[value])
    assert len(drafter.propose(extended)) == 2  # also at a hypothetical <|value|> (extending a draft)
    inside = drafter.propose(DraftContext(tokens=tokens + [50, 51], n_prompt=len(prompt), max_depth=8))
    assert [c.tokens for c in inside] == [[41, 52, reply]]  # a value under way: the copy goes on
    closed = tokens + [50, reply, 70]
    assert drafter.propose(DraftContext(tokens=closed, n_prompt=len(prompt), max_depth=8)) == []


class ChoiceConstraint:
    """Root: the schema allows tokens 10 or 11; after 10, 12 is forced; after that anything."""

    def allowed(self, state):
        return {"root": np.array([10, 11]), "after10": np.array([12])}.get(state)

    def allowed_set(self, state):
        allowed = self.allowed(state)
        return None if allowed is None else frozenset(allowed.tolist())

    def forced(self, state):
        return 12 if state == "after10" else None

    def advance(self, state, token):
        return {("root", 10): "after10"}.get((state, token), "free")


def test_small_schema_choices_are_all_drafted():
    from types import SimpleNamespace

    from globalgen_ros.decoding.calibration import AcceptanceStats
    from globalgen_ros.decoding.candidates import build_candidates
    from globalgen_ros.decoding.engine import DecodeOptions
    from globalgen_ros.decoding.tree import Chain

    run = SimpleNamespace(constraint=ChoiceConstraint(), state="root")
    for branches, expected in ((4, {(10,), (11,), (10, 12)}), (0, {(11,)})):
        dec = SimpleNamespace(acceptance=AcceptanceStats(), end_id=END, options=DecodeOptions(schema_branches=branches))
        cands = build_candidates(dec, run, [Chain([11], [0.6], ["ds1"])], max_depth=4)
        paths = set()
        for i in range(len(cands)):
            path, j = [], i
            while j >= 0:
                path.insert(0, cands.token[j])
                j = cands.parent[j]
            paths.add(tuple(path))
        assert paths == expected
        if branches:  # the drafted 11 keeps its estimate; 10 gets what is left
            assert cands.p[cands.kids[0][10]] == pytest.approx(1.0 - cands.p[cands.kids[0][11]])
