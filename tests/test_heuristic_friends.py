"""HeuristicAgent's find-friends rules (RULES.md §10.6): who an attacker may count as partner
while the friend is hidden, and a smoke run of the arena's
find-friends metric through ``shengji-eval``."""

from types import SimpleNamespace

import numpy as np

from agents.baselines import HeuristicAgent
from agents.baselines import heuristic_play as hp
from shengji_env import cards
from shengji_env.rules import Rules, TrumpContext

FF = Rules(partnership="FIND_FRIEND")
H_A = cards.card_id("H", "A")
CTX = TrumpContext.from_rules(0, 0, FF)  # level 2, spades trump
HEARTS = 1  # effective suit of H:A under spades trump


def attacker_view(dealer=2, shown=-1, played=None, voids=None):
    """An attacker's view (my_side 1, relative seats) with the friend card H:A named."""
    return SimpleNamespace(
        my_side=1, dealer=dealer, friend_shown=shown, friend_card=H_A,
        hand=np.zeros(54, dtype=np.uint8),
        played=np.zeros((4, 54), dtype=np.uint8) if played is None else played,
        voids=np.zeros((4, 5), dtype=bool) if voids is None else voids)


def test_attacker_knows_no_partner_while_nothing_is_proven():
    assert hp.known_partners(attacker_view(), CTX.effective_suits, 2) == frozenset()


def test_attacker_void_in_the_friend_suit_is_a_partner():
    voids = np.zeros((4, 5), dtype=bool)
    voids[3, HEARTS] = True  # seat 3 shows void in hearts unshown: it holds no H:A
    assert hp.known_partners(attacker_view(voids=voids), CTX.effective_suits, 2) == {3}


def test_attacker_who_played_a_copy_unshown_is_a_partner():
    played = np.zeros((4, 54), dtype=np.uint8)
    played[1, H_A] = 1
    assert hp.known_partners(attacker_view(played=played), CTX.effective_suits, 2) == {1}


def test_both_others_proven_means_nothing_consistent_is_claimed():
    played = np.zeros((4, 54), dtype=np.uint8)
    played[1, H_A] = played[3, H_A] = 1  # cannot both be attackers with a friend hidden
    assert hp.known_partners(attacker_view(played=played), CTX.effective_suits, 2) == frozenset()


def test_dealer_played_every_copy_is_alone():
    played = np.zeros((4, 54), dtype=np.uint8)
    played[2, H_A] = 2
    assert hp.known_partners(attacker_view(played=played), CTX.effective_suits, 2) == {1, 3}


def test_shown_friend_decides():
    assert hp.known_partners(attacker_view(shown=1), CTX.effective_suits, 2) == {3}


def test_eval_cli_reports_friend_share(capsys):
    from agents.eval.cli import main
    assert main(["heuristic", "random", "--rule", "partnership=FIND_FRIEND", "--deals", "3",
                 "--no-progress", "--json"]) == 0
    import json
    m = json.loads(capsys.readouterr().out)["matches"][0]
    assert m["a_seat_hands"] == 12 and m["hands"] == 12
    assert 0.0 <= m["a_share"] <= 1.0 and m["a_share_ci"][0] <= m["a_share"] <= m["a_share_ci"][1]
    roles = m["a_roles"]
    assert set(roles) == {"dealer", "friend", "attacker"}
    assert sum(r["seat_hands"] for r in roles.values()) == 12
    assert sum(r["wins"] for r in roles.values()) == m["a_wins"]
    assert main(["heuristic", "random", "--rule", "partnership=FIND_FRIEND", "--deals", "3",
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "heuristic seat-hands by role:" in text and "the dealer's friend" in text


def test_friend_share_counts_each_role_once_per_hand():
    """The same deterministic agent in every seat plays each deal's four copies alike, so the
    agent is the dealer in one copy of each deal, the friend in at most one, and a friend wins
    only with his dealer."""
    from agents.eval.arena import Deals, friend_win_share
    rules = Rules(partnership="FIND_FRIEND")
    deals = Deals.generate(6, rules, seed=2)
    share = friend_win_share((HeuristicAgent(rules), HeuristicAgent(rules)), deals, rules)
    roles = share.a_roles
    assert sum(k for k, _ in roles.values()) == share.a_seat_hands == 24
    assert sum(w for _, w in roles.values()) == round(share.a_share * 24)
    assert roles["dealer"][0] == 6 and 0 < roles["friend"][0] <= 6
    assert roles["friend"][1] <= roles["dealer"][1]  # a friend wins only with his dealer


# ------------------------------------------------------------ heuristic_friends: card play

def play_view(hand, my_side=0, dealer=2, leading=True, trick=None, trick_leader=-1,
              played=None, kitty=None):
    """A find-friends play view (relative seats, spades trump at level 2, friend card C:A)."""
    z = np.zeros((4, 54), dtype=np.uint8)
    return SimpleNamespace(
        my_side=my_side, dealer=dealer, dealer_side=my_side == 0, friend_shown=-1,
        friend_card=cards.card_id("C", "A"), hand=cards.parse(hand), voids=np.zeros((4, 5), bool),
        played=z.copy() if played is None else played, leading=leading, shown=z.copy(),
        trick=z.copy() if trick is None else trick, trick_leader=trick_leader,
        kitty=cards.parse(kitty or "") if kitty is not None else np.zeros(54, dtype=np.uint8))


def table(view):
    return hp.Table.build(view, FF, CTX)


def named(play):
    return cards.format(play.astype(np.uint8))


def test_friend_keeps_the_top_trump_for_the_last_trick():
    from agents.baselines import heuristic_friends as hf
    t = table(play_view("Jk:BJ, H:3"))  # two cards left, the friend leads
    assert named(hp.plan_lead(t)) == named(cards.parse("Jk:BJ"))  # plain play: the safe trump
    assert named(hf.plan_play(t)) == named(cards.parse("H:3"))  # kept for the last trick


def test_dealer_who_buried_no_points_does_not_keep_it():
    from agents.baselines import heuristic_friends as hf
    t = table(play_view("Jk:BJ, H:3", dealer=0, kitty="H:3 4 6 7 8 9, C:3 4"))
    assert hf.last_trick_reserve(t) is None
    assert named(hf.plan_play(t)) == named(cards.parse("Jk:BJ"))
    t = table(play_view("Jk:BJ, H:3", dealer=0, kitty="H:10 4 6 7 8 9, C:3 4"))  # 10 points buried
    assert named(hf.plan_play(t)) == named(cards.parse("H:3"))


def test_reserve_gives_way_to_the_follow_obligation():
    from agents.baselines import heuristic_friends as hf
    trick = np.zeros((4, 54), dtype=np.uint8)
    trick[3] = cards.parse("S:4")  # an attacker before me leads a trump
    t = table(play_view("Jk:BJ, S:3", leading=False, trick=trick, trick_leader=3))
    assert named(hp.plan_follow(t)) == named(cards.parse("Jk:BJ"))
    assert named(hf.plan_play(t)) == named(cards.parse("S:3"))  # the other trump follows
    t = table(play_view("Jk:BJ, H:3", leading=False, trick=trick, trick_leader=3))
    assert named(hf.plan_play(t)) == named(cards.parse("Jk:BJ"))  # my only trump must follow


def test_friend_leads_a_high_single_instead_of_a_low_one():
    from agents.baselines import heuristic_friends as hf
    played = np.zeros((4, 54), dtype=np.uint8)
    played[1, cards.card_id("H", "A")] = 2
    played[3, cards.card_id("H", "K")] = 1  # one H:K unseen above my H:Q
    t = table(play_view("H:Q 4, D:3 6", played=played))
    low = hp.plan_lead(t)
    assert int(low.sum()) == 1 and named(low) != named(cards.parse("H:Q"))
    assert named(hf.plan_play(t)) == named(cards.parse("H:Q"))
    # an attacker (the friend still hidden) keeps the plain lead
    t = table(play_view("H:Q 4, D:3 6", played=played, my_side=1))
    assert named(hf.plan_play(t)) == named(hp.plan_lead(t))
    # too many unseen cards above it: the plain lead
    played[3, cards.card_id("H", "K")], played[1, cards.card_id("H", "A")] = 0, 1  # three above
    t = table(play_view("H:Q 4, D:3 6", played=played))
    assert named(hf.plan_play(t)) == named(hp.plan_lead(t))


def test_dealer_draws_trumps_with_a_probable_winner():
    from agents.baselines import heuristic_friends as hf
    played = np.zeros((4, 54), dtype=np.uint8)
    played[1, cards.BJ] = 1  # one big joker unseen: one trump above my small joker
    t = table(play_view("S:3 Q, Jk:LJ", dealer=0, played=played))
    assert named(hp.plan_lead(t)) == named(cards.parse("S:3"))  # the plain lead: a low trump
    assert named(hf.plan_play(t)) == named(cards.parse("Jk:LJ"))
    # the friend, or an attacker, keeps the plain lead (the rule is the dealer's)
    for my_side, dealer in ((0, 2), (1, 2)):
        t = table(play_view("S:3 Q, Jk:LJ", my_side=my_side, dealer=dealer, played=played))
        assert named(hf.plan_play(t)) == named(hp.plan_lead(t))
    # both big jokers unseen: no trump of mine is a probable winner, the plain lead stays
    t = table(play_view("S:3 Q, Jk:LJ", dealer=0))
    assert hf.draw_high(t, cards.parse("S:3").astype(np.int64)) is None
    # a point trump is never the replacement, nor is an off-suit single replaced
    above_k = np.zeros((4, 54), dtype=np.uint8)
    above_k[1, [cards.card_id("S", "A"), cards.LJ, cards.BJ]] = 2
    above_k[1, [cards.card_id(s, "2") for s in "SHDC"]] = 2
    t = table(play_view("S:3 K, H:4", dealer=0, played=above_k))  # nothing unseen above S:K
    assert hf.draw_high(t, cards.parse("S:3").astype(np.int64)) is None
    assert hf.draw_high(t, cards.parse("H:4").astype(np.int64)) is None


def test_dealer_leads_a_probable_winner_with_its_points():
    from agents.baselines import heuristic_friends as hf
    played = np.zeros((4, 54), dtype=np.uint8)
    played[1, H_A] = 1  # one H:A unseen: my H:K is beaten by one card only
    t = table(play_view("H:K 4, D:3 6", dealer=0, played=played))
    low = hp.plan_lead(t)
    assert int(low.sum()) == 1 and named(low) != named(cards.parse("H:K"))
    assert named(hf.plan_play(t)) == named(cards.parse("H:K"))
    # the friend's high lead leaves point cards out
    t = table(play_view("H:K 4, D:3 6", played=played))
    assert named(hf.plan_play(t)) == named(hp.plan_lead(t))
    # both aces unseen: two cards beat the king, the plain lead stays
    t = table(play_view("H:K 4, D:3 6", dealer=0))
    assert named(hf.plan_play(t)) == named(hp.plan_lead(t))


def test_last_cards_that_form_one_unit_are_led_whole():
    from agents.baselines import heuristic_friends as hf
    for hand in ("S:Q Q", "H:4 4", "H:4 4 5 5"):  # a trump pair, an off-suit pair, a tractor
        t = table(play_view(hand, my_side=1))
        assert named(hf.plan_play(t)) == named(cards.parse(hand))  # the last trick, whole
    t = table(play_view("S:Q K", my_side=1))  # two trumps, no pair: the reserve keeps the king
    assert named(hf.plan_play(t)) == named(cards.parse("S:Q"))
    assert hf.last_unit(table(play_view("H:4 4, D:5 5", my_side=1))) is None  # two suits


def test_low_trump_is_kept_for_the_last_trick_from_ten_cards_on():
    from agents.baselines import heuristic_friends as hf
    t = table(play_view("S:3, H:4 5 6 7 8, D:4 5 6 7 8"))  # 11 cards: a low trump is not kept
    assert hf.last_trick_reserve(t) is None
    t = table(play_view("S:3, H:4 5 6 7 8, D:4 5 6 7"))  # 10 cards: any trump is kept
    assert named(hf.last_trick_reserve(t)) == named(cards.parse("S:3"))


def point_trick(led, my_side=0, voids=None, played=None):
    """I follow in seat 0 after an attacker's single lead (seat 3); seats 1 and 2 play after me.
    Both H:A are played, so two unseen cards (the H:K) beat my H:Q."""
    if played is None:
        played = np.zeros((4, 54), dtype=np.uint8)
        played[1, cards.card_id("H", "A")] = 2
    trick = np.zeros((4, 54), dtype=np.uint8)
    trick[3] = cards.parse(led)
    view = play_view("H:Q 4, D:3 6", my_side=my_side, leading=False, trick=trick, trick_leader=3,
                     played=played)
    if voids is not None:
        view.voids = voids
    return table(view)


def test_point_trick_is_taken_with_a_probable_winner():
    from agents.baselines import heuristic_friends as hf
    t = point_trick("H:10")
    assert named(hp.plan_follow(t)) == named(cards.parse("H:4"))  # plain play: duck
    assert named(hf.plan_play(t)) == named(cards.parse("H:Q"))
    assert named(hf.plan_play(point_trick("H:10", my_side=1))) == named(cards.parse("H:Q"))


def test_probable_winner_is_not_spent_when_it_should_not_be():
    from agents.baselines import heuristic_friends as hf
    # no points in the trick
    assert named(hf.plan_play(point_trick("H:3"))) == named(cards.parse("H:4"))
    # three unseen cards beat the H:Q
    played = np.zeros((4, 54), dtype=np.uint8)
    played[1, cards.card_id("H", "A")] = 1
    assert named(hf.plan_play(point_trick("H:10", played=played))) == named(cards.parse("H:4"))
    # an opponent after me is void in hearts and may ruff
    voids = np.zeros((4, 5), dtype=bool)
    voids[1, HEARTS] = True
    assert named(hf.plan_play(point_trick("H:10", voids=voids))) == named(cards.parse("H:4"))


# ------------------------------------------------------- the friend card: a seat that overturned

def friend_view(hand, shown_by=None, kitty="", friend_card=-1):
    """The dealer's view at the friend card (seat 0 dealer, spades trump at level 2);
    ``shown_by``: {relative seat: cards it showed declaring}."""
    shown = np.zeros((4, 54), dtype=np.uint8)
    for r, text in (shown_by or {}).items():
        shown[r] = cards.parse(text)
    return SimpleNamespace(my_side=0, dealer=0, friend_shown=-1, friend_card=friend_card,
                           hand=cards.parse(hand), kitty=cards.parse(kitty), shown=shown,
                           played=np.zeros((4, 54), dtype=np.uint8))


def test_dealer_names_a_trump_pair_another_seat_showed():
    from agents.baselines.heuristic import name_friend_card
    hand = "H:K Q 9, C:3, S:A K, Jk:BJ"
    assert name_friend_card(friend_view(hand), CTX, 2) == cards.BJ  # nobody else showed
    # seat 2 overturned with the S:2 pair: he holds both copies, he is the friend for sure
    assert name_friend_card(friend_view(hand, {2: "S:2 2"}), CTX, 2) == cards.card_id("S", "2")
    # the higher of two shown pairs: the small jokers of seat 3
    view = friend_view(hand, {2: "S:2 2", 3: "Jk:LJ LJ"})
    assert name_friend_card(view, CTX, 2) == cards.LJ
    # one copy shown, the other mine (in hand or buried): still he
    view = friend_view(hand + ", H:2", {1: "H:2"})
    assert name_friend_card(view, CTX, 2) == cards.card_id("H", "2")
    view = friend_view(hand, {1: "H:2"}, kitty="H:2")
    assert name_friend_card(view, CTX, 2) == cards.card_id("H", "2")
    # one copy shown, the other unseen: its holder may come first, so the big joker
    assert name_friend_card(friend_view(hand, {1: "H:2"}), CTX, 2) == cards.BJ


def test_dealer_counts_the_seat_that_showed_the_friend_card_as_partner():
    s2 = cards.card_id("S", "2")
    view = friend_view("H:K Q 9", {2: "S:2 2"}, friend_card=s2)
    assert hp.known_partners(view, CTX.effective_suits, 2) == frozenset({2})
    view = friend_view("H:K Q 9", {2: "S:2"}, friend_card=s2)  # the other copy is not mine
    assert hp.known_partners(view, CTX.effective_suits, 2) == frozenset()
    view = friend_view("H:K Q 9, S:2", {2: "S:2"}, friend_card=s2)
    assert hp.known_partners(view, CTX.effective_suits, 2) == frozenset({2})
    view = friend_view("H:K Q 9", {2: "S:2 2"}, friend_card=cards.BJ)
    assert hp.known_partners(view, CTX.effective_suits, 2) == frozenset()
