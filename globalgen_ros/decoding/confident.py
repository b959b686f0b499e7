"""`confident` (lossy): parallel decoding that also accepts drafts it is confident about without checking them.

Two relaxations of `parallel`, both governed by a dynamic threshold tau (seed 002, sections 4.3 and 6.1): high
at the start, multiplied by `tau_decay` per forward down to `tau_floor`, and raised back to `tau_end` for
<|end|> and within `end_window` tokens of the length limit.
- Beyond the verified frontier, the most likely draft chain is accepted token by token while each token's
  estimated acceptance probability (the drafter's confidence, calibrated against verification so far)
  reaches tau. Its K/V is computed by the next forward like any pending token.
- During verification, a drafted child whose verified probability reaches tau is accepted even when it is not
  the greedy token (this only matters when tau is below 0.5).
Schema-forced tokens stay exact, and header choices (intent, slots) are always verified unless
`lossy_header` is set: only the wording of the spoken reply may deviate. `globalgen bench` measures how much.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from globalgen_ros.decoding.candidates import build_candidates, draft_depth, propose
from globalgen_ros.decoding.drafters import Drafter
from globalgen_ros.decoding.step import DecodeOptions, Run, accept

if TYPE_CHECKING:
    from globalgen_ros.decoding.engine import Decoder


@dataclass
class ThresholdSchedule:
    tau: float = 0.93
    decay: float = 0.97
    floor: float = 0.5
    tau_end: float = 0.93
    end_window: int = 4

    @classmethod
    def from_options(cls, o: DecodeOptions) -> ThresholdSchedule:
        return cls(o.tau, o.tau_decay, o.tau_floor, o.tau_end, o.end_window)

    def at(self, step: int) -> float:
        """Return the threshold after `step` forwards."""
        return max(self.floor, self.tau * self.decay ** step)

    def verify_tau(self, step: int) -> float:
        return self.at(step)

    def for_token(self, step: int, token: int, end_id: int, room: int) -> float:
        """Return the threshold of one token: raised for <|end|> and close to the length limit."""
        if token == end_id or room <= self.end_window:
            return max(self.tau_end, self.at(step))
        return self.at(step)


def extend_confident(dec: Decoder, run: Run, drafters: list[Drafter], schedule: ThresholdSchedule,
                     step: int) -> int:
    """Accept the most likely unverified draft chain while each token is confident enough; return its length."""
    depth = draft_depth(dec, run)
    if depth <= 0 or (not dec.options.lossy_header and run.constraint.allowed(run.state) is not None):
        return 0  # a header choice comes next (forced tokens are already in): it is always verified
    cands = build_candidates(dec, run, propose(dec, run, drafters, depth), depth)
    cands.finalize()
    node, taken = -1, 0
    while run.finish is None:
        kids = cands.kids[node + 1]
        if not kids:
            break
        best = max(kids.values(), key=lambda i: cands.p[i])
        token = cands.token[best]
        if cands.keys[best] and not dec.options.lossy_header and run.constraint.allowed(run.state) is not None:
            break  # a header choice (intent, slot, value) is always verified: only the reply wording may deviate
        if cands.p[best] < schedule.for_token(step, token, dec.end_id, run.limit - len(run.tokens)):
            break
        accept(run, token, dec.end_id, cands.state[best], known_state=True)
        if cands.keys[best]:  # forced tokens (no keys) are exact, not guesses
            run.stats.unverified += 1
        node, taken = best, taken + 1
    return taken
