"""Stop-phrase matching of the safety reflex, session history and language detection (no ROS traffic)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from globalgen_ros.serving.reflex import ReflexWordsError, StopReflex, load_words, with_names
from globalgen_ros.serving.sessions import Sessions
from globalgen_ros.watchdog.language import detect_language
from globalgen_ros.watchdog.supervisor import Turn

REFLEX = StopReflex()
BLIND = Path(__file__).resolve().parent.parent / "eval" / "blind"


@pytest.mark.parametrize("text", ["stop", "Stop!", "STOP STOP STOP", "stop, stop!", "please stop now", "freeze",
                                  "Emergency stop!", "halt right now", "停", "停！", "停停停", "停车", "快停车",
                                  "请马上停车！", "紧急停车", "别动", "停下吧", " 停 车 ", "Hit the brakes!",
                                  "don't move.", "立即停车啊", "停止一切动作", "快刹车", "stop the robot now",
                                  "stop stop, there's a wall", "停停停，前面有人", "whoa, stop!", "hold it!",
                                  "停下停下停下",
                                  "马上停车，前面有人摔倒了", "stop stop there's a kid", "whoa!", "whoa whoa",
                                  "停住 别走了", "no no no stop", "快停下 要撞了"])
def test_stop_phrases_fire(text):
    assert REFLEX.matches(text)


@pytest.mark.parametrize("text", ["导航到停车场", "stop the music", "don't stop", "stop the navigation please",
                                  "bus stop", "别停", "停止导航", "帮我找个停车位", "", "   ", "!!!", "stopping",
                                  "stop " * 30, "don't move the box", "brake lights on", "刹车灯", "stop the song",
                                  "the next stop on the tour", "停车位还有吗", "come here", "停车场在哪",
                                  "whoa that's a nice view", "stop by the pharmacy on the way", "停车了再说",
                                  "停一下音乐",
                                  "hold on a second, what's the address", "停电了", "don't stop the music",
                                  "ha, fair enough. call grandma",
                                  "call grandma and tell her the dog ate grandma's cake"])
def test_commands_containing_stop_words_go_to_the_model(text):
    assert not REFLEX.matches(text)


@pytest.mark.parametrize("text", ["stop the light's red", "stop you're dragging my leg", "停车前面有只猫",
                                  "停下衣服被卡住了", "There's a kid — stop!", "前面有人快停",
                                  "the stairs the stairs stop", "ouch stop", "wait wait wait", "等等等等", "小心!",
                                  "要撞了", "rover stop", "小G停车"])
def test_reasons_warnings_repetitions_and_names_fire(text):
    assert REFLEX.matches(text)


@pytest.mark.parametrize("text", ["take me to the bus stop", "this is the last stop", "when do we stop", "hey", "no",
                                  "wait", "wait for me at the door", "no no I meant the other one",
                                  "stop what's playing", "ok let me know when we stop",
                                  "there's a kid in the back, play some music", "停车了再说", "停车去吃饭吧",
                                  "刹车灯亮了怎么回事", "急停按钮在哪里", "停车费多少", "停在门口", "下一站停",
                                  "我们在门口停", "小心点开", "别动我的文件"])
def test_clause_rules_leave_questions_places_and_negations_to_the_model(text):
    assert not REFLEX.matches(text)


@pytest.mark.parametrize("text", ["There's a wall!", "kid in the road!", "前面有小孩！", "有人！有人！", "deer deer",
                                  "you're about to hit the wall", "it's got my sleeve", "要撞上了", "你要撞墙了！",
                                  "夹住了夹住了", "天哪要撞人了！", "Whoa, whoa, it's tipping over!"])
def test_warnings_of_danger_without_a_stop_word_fire(text):
    assert REFLEX.matches(text)


@pytest.mark.parametrize("text", ["there's a dog in the garden", "my hand hurts from typing", "前面有个小孩在踢球",
                                  "I'm gonna hit the gym later", "will we hit traffic?", "don't brake, there's a "
                                  "truck behind us!", "别刹车，后面有车！", "要撞衫了吗？", "天哪这首歌真好听"])
def test_statements_questions_and_negated_stops_are_no_warnings(text):
    assert not REFLEX.matches(text)


@pytest.mark.parametrize("text", ["挺挺挺", "听停停", "杀车杀车", "stopstopstop", "st st stop", "stop the the car",
                                  "挺挺挺前面有人", "婷婷婷 前面有车"])
def test_asr_homophones_and_stutters_read_as_the_stop_word(text):
    assert REFLEX.matches(text)


@pytest.mark.parametrize("text", ["听", "听听这首歌", "挺好的", "杀车是什么意思", 'Play "Stop" by the Spice Girls',
                                  "放一首《停》", "听听听这首歌"])
def test_homophones_fire_only_as_bare_stop_phrases_and_quotes_are_no_pause(text):
    assert not REFLEX.matches(text)


@pytest.mark.parametrize("text", ["刹车有异响", "停车的时候记得拉手刹", "play baby shark again! again!",
                                  "播放小孩的歌！"])
def test_talk_about_brakes_and_requests_that_name_a_hazard_are_no_stops(text):
    assert not REFLEX.matches(text)


@pytest.mark.parametrize("text, fires", [("stop the damn forklift, she's right there", True),
                                         ("stop the robot vacuum, it's eating the cord", True),
                                         ("halt that old conveyor belt!", True),
                                         ("stop the car alarm please", False),
                                         ("stop the music video, it's dull", False),
                                         ("stop the little red song", False)])
def test_a_stop_may_name_the_machine_with_words_before_it(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("小乐停车停车", True), ("阿福停停停前面有人", True), ("小乐停车", False),
                                         ("音乐停下来", False), ("导航停车场停车场", False)])
def test_an_unknown_name_counts_only_before_a_halt_said_twice(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("小白停下！", True), ("阿福快停", True), ("小蓝别动", True),
                                         ("小区停车", False), ("小时停车", False), ("小白", False)])
def test_a_nickname_jieba_does_not_know_counts_before_a_stop(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("stop if you see a kid", False),
                                         ("would you stop if the dog walked out?", False),
                                         ("if the dog walks in front of you, stop", False),
                                         ("stop when the light turns red", False), ("stop, the dog!", True),
                                         ("stop stop there's a kid", True)])
def test_a_condition_after_a_stop_is_a_rule_for_later(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("Help! It won't let go!", True), ("小度小度停车", True),
                                         ("妈妈让它停下来！", True), ("don't worry, it's not going to fall", False),
                                         ("谢谢谢谢", False),
                                         ("don't brake, there's a truck behind us", False)])
def test_negations_inside_a_danger_wake_words_said_twice_and_parents_as_leads(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("Oh stop, you flatter me.", False), ("停停停，别夸了，我都不好意思了", False),
                                         ("Stop, drop and roll is what they teach kids", False),
                                         ("小孩玩一二三木头人，喊了一下午停", False),
                                         ("haha, stop stop, there's a kid", True),
                                         ("Stop me if you've heard this one: a horse walks into a bar", False),
                                         ("刚才有人喊了声停，吓我一跳", False), ("stop, the horse!", True)])
def test_banter_set_phrases_and_reported_shouts_halt_nothing(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("Zippy halt!", True), ("call Stop & Shop", False), ("bus stop please", False),
                                         ("送药机器人停下 有人摔倒了", True), ("怎么让机器人停下来", False),
                                         ("stop stop stop slide", True), ("stop sto-", True),
                                         ("Stop you stupid machine!", True), ("Holy cow, look at that rainbow!", False),
                                         ("'Freeze!' the cop yelled in the movie, and everyone laughed.", False),
                                         ("小心玻璃！", True), ("小白快停 撞到奶奶了", True), ("小区停车难", False)])
def test_names_machines_triples_cut_off_words_and_reported_speech(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("Stop the bus, my bag's stuck in the door!", True),
                                         ("stop movin stop movin", True), ("叫你停下没听见吗！停！", True),
                                         ("婷下来婷下来前面有人", True), ("emergency stop emergen—", True),
                                         ("Wait! Wait! The kid!", True), ("这辆车刹车很灵", False),
                                         ("Freeze tag was my favourite game as a kid.", False),
                                         ("停，这首歌不好听，换一首。", False), ("刹车灯不亮了，记得去修。", False),
                                         ("Spell brake, like the car part.", False), ("停车前面水太深了", True)])
def test_list_12_machines_last_sentences_homophones_and_banter(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("Why won't you stop?!", True), ("你怎么还不停？！", True),
                                         ("Can somebody stop that robot?!", True), ("Why aren't you braking?!", True),
                                         ("Can you stop the music?!", False), ("Why won't you stop the song?", False),
                                         ("I was telling you about the garden, the hose, the tomatoes and the fence "
                                          "for ten minutes and now it is rolling into the flower bed, stop it now!",
                                          True),
                                         ("I was telling you about the garden, the hose, the tomatoes and the fence "
                                          "for ten minutes and how my neighbour never stops talking, stop it now",
                                          False),
                                         ("Get off me!", True), ("Kill the line!", True), ("拉闸！", True),
                                         ("stop laughing, there's nothing funny about it", False),
                                         ("到了门口的时候停", False), ("停机检修放在下周", False)])
def test_list_13_reproaches_long_texts_power_words_habits_and_conditions(text, fires):
    assert REFLEX.matches(text) is fires


@pytest.mark.parametrize("text, fires", [("Excuse me, so sorry, but stop now, it's on my bag!", True),
                                         ("打扰一下 麻烦您马上停一下 我鞋带卷进去了", True), ("Hold position!", True),
                                         ("无人机原地悬停", True), ("劳驾快停下，有人", True),
                                         ("急停反应时间要测一下", False), ("停停走走的真累", False),
                                         ("Simon says stop!", False), ("无人机悬停的时间是多少", False)])
def test_list_14_polite_leads_technical_halts_and_games(text, fires):
    assert REFLEX.matches(text) is fires


def test_robot_names_come_from_a_parameter():
    words = load_words()  # one unknown word before a stop is read as a name anyway ("robbie stop"); longer names not
    assert not StopReflex(words).matches("big robbie stop") and not StopReflex(words).matches("大白熊停车")
    assert StopReflex(with_names(words, ["Big Robbie"])).matches("big robbie stop")
    assert StopReflex(with_names(words, ["大白熊"])).matches("大白熊停车")


def test_word_lists_are_data(tmp_path):
    path = tmp_path / "reflex.yaml"
    path.write_text("en: {stop: [whoa], hazard: [wall]}\n", encoding="utf-8")
    reflex = StopReflex(load_words(path))
    assert reflex.matches("Whoa!") and reflex.matches("whoa the wall") and not reflex.matches("stop")
    reflex.configure({"stop": ["stop"]})
    assert reflex.matches("stop") and not reflex.matches("whoa")


@pytest.mark.parametrize("text, problem", [("en: {stop: [no]}", "booleans"), ("en: {brake: [x]}", "expected lists"),
                                           ("en: {lead: [hey]}", "no stop phrases"), ("[1, 2]", "mapping"),
                                           ("en: {stop: [\"\"]}", "non-blank")])
def test_bad_word_lists_say_what_is_wrong(tmp_path, text, problem):
    path = tmp_path / "reflex.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReflexWordsError, match=problem):
        load_words(path)
    with pytest.raises(ReflexWordsError, match="cannot read"):
        load_words(tmp_path / "missing.yaml")


# Blind lists (eval/blind/reflex_stops*.json), written by helpers who never saw the reflex or its word lists.
# Each list was measured once, then the word lists and rules were improved on its misses (list 3 first: en 89.6 %,
# zh 82.1 %, 1 false stop; list 4 first: en 68.4 %, zh 71.0 %, 0 false stops; list 5 first: en 73.0 %, zh 64.6 %,
# 2 / 1; list 6 first, after the warning and homophone rules that list 5 taught: en 84.7 %, zh 82.1 %, 5 / 1;
# list 7 first: en 94.7 %, zh 92.5 %, 0 / 1; list 8 first, after list 7's words: en 86.7 %, zh 89.1 %, 0 / 0;
# lists 7 and 8 less their 16 lines equal to lines of the training supplements; list 9 first, after list 8's words:
# en 103/113 (91.2 %), zh 109/115 (94.8 %), 6 / 5 false stops, which taught machine objects with words before the
# noun ("stop the bloody mower"), family words and device names as leads, sentence particles (停哦), reported
# shouts ("I screamed stop") and talk about replaced brakes; list 10 first, after list 9's words: en 167/168
# (99.4 %), zh 146/150 (97.3 %), 6 / 1 false stops (4 lines equal to supplement lines removed), which taught
# conditions after a stop ("stop if the dog …"), nicknames jieba does not know (小白停下), kin words as leads
# (叔叔快停车) and "自动停"; the model's gated stops on lists 1-10 then taught negations inside a danger ("it won't
# let go") and wake words said twice (小度小度停车); list 11 first, after banter and set phrases: en 166/177 (93.8 %),
# zh 138/147 (93.9 %), 6 / 2 false stops, which taught unknown names before a stop ("Zippy halt!"), machine nouns
# as address (送药机器人停下), stops said three times whatever follows, cut-off last words ("stop sto-"), reported
# speech ("'Freeze!' the cop yelled in the movie") and hazards inside a lead ("holy cow"); list 12 first, after
# list 11's: en 124/138 (89.9 %), zh 135/147 (91.8 %), 10 / 6 false stops, which taught more machines (bus,
# tractor, 高尔夫车), an exclaimed last sentence that stops (叫你停下没听见吗！停！), homophones said twice
# (婷下来婷下来), "movin", a hazard after a warning said twice, and more banter, set phrases and reported
# speech. The stops of blind test set 6, first run: en 16/18, zh 19/21, 2 / 0 false stops; its misses and
# "play baby shark again! again!" then added).
# List 13's first run: en 143/170 (84.1 %), zh 100/149 (67.1 %), 5 / 8 false stops; it taught exclaimed reproaches
# (你还不停？！, "Are you not going to stop?!"), an exclaimed last clause of a long text, "get away from her", power
# and line words (拉闸, "kill the line", lockout), dialect and role leads, conditions in Chinese (的时候), "stop
# scrolling" (an -ing habit) and more banter and not_after words.
# List 14's first run, with list 13's rules: en 119/130 (91.5 %), zh 110/130 (84.6 %), 6 / 6 false stops (session 16's
# rules: 119, 109, 7 / 5); it taught polite and apologetic leads (excuse me, 不好意思, 劳驾), technical halts
# (hold position, 保持位置, 悬停), dialect (停一哈, 恁), songs, games and readings as banter (Simon says).
# List 15's first run (session 21): en 103/128 (80.5 %), zh 121/132 (91.7 %), 1 / 5 false stops; it taught leads and
# fillers (jeez, sir, yo, easy, nein, "for the love of god", bot, bro, "ya eejit"), "<machine> off", pidgin ("stop o"),
# hang on / easy / chill said again and again, 兄弟 / 老铁 as leads, 停落来 and 撒车 (Wu, ASR), collapses (要塌) and
# wrong ways (走错了) as hazards, 刹车踩轻一点 as advice. Still false: banter and reported 停停停 inside
# longer Chinese sentences.
# List 16's first run (session 21, after list 15 was learnt): en 95/121 (78.5 %), zh 136/148 (91.9 %), 6 / 7 false
# stops; it taught (session 22) Dutch, Scots, Tagalog and Xhosa halts and leads (hou op, haud on, hinto, para po,
# sandali, hayi), a stop said last after a clause ("the toddler's right behind you stop"), misheard halts before a
# hazard (快听车前面有人), dialect halts (停哈, 刹牢, 咪再行), a stop run said of someone else (一直喊停停停), stop
# motion / freeze frame / back in the day as set phrases, and tickling and reading aloud as banter.
# List 17's first run (session 22, after list 16 was learnt): en 85/122 (69.7 %), zh 133/160 (83.1 %), 5 / 6 false
# stops. It taught Māori, Irish and Tagalog halts (kāti, stad, tigil), Irish, Nigerian and Singapore leads and fillers
# (feck, oga, lah), farm animals as hazards, halts said three times by sound (stock stock stock, stopped stopped
# stopped), "nonononono", Hunan and Sichuan halts (停哒, 龟儿子), 集卡 as a machine, banter (别唠了) and set phrases
# (这个字, break a leg, blood pressure). Still missed: warnings without any stop word that name a danger only the
# setting knows ("the drip stand!", "you're on his oxygen tube"), and long Chinese complaints with a question in them.
# List 18's first run (session 22, after list 17 was learnt): en 81/106 (76.4 %), zh 121/141 (85.8 %), 3 / 9 false
# stops; with the n-gram model 98 ; 136. It taught French, Polish, Romanian, Portuguese and Welsh halts, Shaanxi 嫑,
# site machines (telehandler, dumper, 塔吊), a space before Chinese as a pause ("stop stop 机械臂停"), drills (演练)
# and caring 别动 (给你擦) as no stop.
# List 19's first run (session 22, after list 18 was learnt): en 92/116 (79.3 %), zh 120/141 (85.1 %), 1 / 9 false
# stops; with the n-gram model 112 ; 131. It taught Swahili and Hindi halts (simama, hapana, abhi ruko), machine names
# as leads (luggage bot, 收割机, 面包车), text-speak fillers (rn, pls), and pets and children told to stop as no stop.
# List 20's first run (session 23, after list 19 was learnt; n-grams learnt lists 1-19): words en 93/112 (83.0 %), zh
# 108/133 (81.2 %), 2 / 2 false stops; with the n-gram model 107 ; 128, false 2 ; 2. It taught English machine nouns
# as the address ("sidewalk robot stop"; "can the car stop itself" asks), farm machines (picker, hitch), "stop dead",
# negated auxiliaries before a stop as no stop ("the deer wouldn't stop eating"), 马上 / 立刻 as leads, Cantonese 停低,
# site and campus vehicles (小巴, 三轮, 吊车, 接驳车) and a chat's 打住 (别再给我推荐…) as no stop.
# List 21's first run (session 23, after list 20 was learnt; n-grams learnt lists 1-20): words en 80/97 (82.5 %), zh
# 100/129 (77.5 %), 1 / 1 false stops; with the n-gram model **95 (97.9 %) ; 127 (98.4 %)**, false 1 ; 1. It taught
# rail and port machines (carrier, locomotive, rig), motion verbs after stop as no habit ("stop rolling"), 原地不动,
# care-home machines (护理床, 外骨骼, 摆渡车), "is stuck" only with a place ("the window is stuck" is a remark), and
# that jieba must not learn 站到 (车站到医院 read 车 / 站到).
# List 22's first run (session 23, after list 21 was learnt; n-grams learnt lists 1-21): words en 76/100 (76.0 %), zh
# 107/129 (82.9 %), 2 / 0 false stops; with the n-gram model 93 (93.0 %) ; 124 (96.1 %), false 2 ; 1. It taught
# resort and airport machines (snowcat, groomer, tug, coach), hazards of the road (black ice, rockfall), "brake" as a
# modifier (brake check, brake pads) and "stop navigation" as no stop, 慢着 as a lead (慢着 这道题… is no stop), and
# "the one that delivers" as the address (送餐的, 泊车的). (Lists 20-22 are counted without 9 lines equal to
# supplement lines, removed after their first runs: 8 bare urgent phrases every path caught, 1 near miss none did.)
# List 23's first run (session 23, after list 22 was learnt; n-grams still of lists 1-21): words en 79/94 (84.0 %), zh
# 95/124 (76.6 %), 0 / 2 false stops; with the n-gram model 91 (96.8 %) ; 116 (93.5 %), false 2 ; 2. It taught film-set
# and park machines (dolly, kart, 小火车, 船, 滑板车), 停船, water and road hazards (落水, 蛇, 横穿), and 急停开关 (the
# switch) as no stop; 冻结 and 立即制动 stay out of the lists, where their characters would stop 别冻别冻 / 及停 from
# being heard as 别动 / 急停.
# List 24's first run (session 24, after list 23 was learnt; n-grams still of lists 1-21): words en 78/95 (82.1 %), zh
# 82/109 (75.2 %), 0 / 1 false stops; with the n-gram model 90 (94.7 %) ; 104 (95.4 %), false 0 ; 1. It taught mine,
# station and park machines (drill, 行李车, 清扫车, 童车, 火车头, a name ending in 号: 小象号), a fleet number after the
# machine noun as the address ("truck six stop"; "truck stop" stays a place), "hold your position", "brakes on",
# 原地停止, 制动, and 刹车和… (a noun in a list) as no stop; 你先 / 前面有 / 别扫了 were tried and left out (they made
# "你先停下手里的活" a stop and taught jieba 扫 words that split 小扫).
# List 25's first run (session 25, four new helpers: a golf course and stadium, a hotel and restaurant, a school, an
# airport apron; after list 24 was learnt; n-grams of lists 1-21): words en 101/164 (61.6 %), zh 146/193 (75.6 %),
# 2 / 3 false stops; with the n-gram model 131 (79.9 %) ; 181 (93.8 %), false 5 ; 4. Most English misses are
# warnings transcribed without punctuation ("there's a kid under the table"). It taught "kill switch", "stay exactly
# where you are", "for crying out loud", "christ almighty", fleet numbers ("number seven stop now"), stadium and hotel
# machines (line marker, ball collector, dumbwaiter), "it's on fire", "that's my leg", "you just scraped", 别碾, 别开走,
# 牵引车, and 急刹了一下 as narration; 校车 as a machine was tried and left out ("昨天校车急刹了一下 有个孩子磕到了").
# The floors are what the lists give now (README: target not met).
# List 26 (session 26: a farm, a film studio, a harbour and car ferry, a car wash and car park) taught sprayer, winch
# and unit as machines ("unit four stop"), pillar as a hazard, "back off" before a stop, "tomorrow" and "after the"
# as a rule for later, 上周 / 早上试过 as narration, 及时停住了 / 停了一下 as set phrases; "full" before stop was tried
# and left out ("full stop now" is urgent in lists 12, 24 and 25). Its false stops are people and animals addressed
# ("Kids, stop splashing each other!", "Stop it, Max, leave the crab alone!") and "full stop" as a name.
# List 27 (a ski resort, road works, a museum, a bus depot) taught bus as a machine ("bus forty two stop"), "request
# stop" as a place, "later" / "in the afternoon" as conditions, 号机 ("三号机停下来"), 等一下 said twice, 的话 as a
# condition, 停车标志, and narrations (还好停了, 刹车…刚修过 / 保养过, 就会停, 刚好停住了).
# List 28 (session 27: a theme park, a hospital and care home, a mine and quarry, a garden) taught coaster, ride,
# crusher, float and 钻机 as machines, "stop lowering", 别降了 / 别升了 / 别剪了, "embarrassing" as banter, "on that
# idea", "the name of", "funny word", 等指令 and 让我想想 as set phrases; "full stop" as a set phrase was tried and left
# out (urgent in lists 12, 24, 25). Its false stops are children and pets addressed ("Rex, stop! Leave the sandwich
# alone.", "狗狗别跑了，过来吃饭") and "i cant stop eating cotton candy".
# List 29 (session 28: a restaurant kitchen, a supermarket, a railway and tram network, a laboratory) taught tram,
# stage and 机车 as machines, "track workers" / 施工人员 as hazards, 拍一张 / 拍照 / 会自动 / 这种事 as set phrases,
# 手柄 after 紧急制动 (a part, not an order), 规定 as a rule. Its false stops are people addressed or quoted ("Lily,
# stop it, no more breadsticks", "宝宝别跑了") and narrations that name a person (上次有人拉了紧急制动).
# List 30 (session 29: an airport, a zoo and safari park, a golf course and stadium, a hotel) taught 拖车, 吓死我了
# and 摄像头 as leads, 长颈鹿 as a hazard, 莫走 (south-western 别走), "stop the press" / "stop by" / "hand signal" and
# stops of a timer, download or announcement as set phrases, "at every" as a rule, tickling and "your sister" as
# banter, 喘口气 / 停停手 / 还好它 as set phrases. Its false stops are people addressed ("Hey, stop it, Max, …",
# "stop eating the crayons sweetie") and a bus stop skipped; its misses "hey safari bus stop" and "carts are
# jackknifing stop" (a stop said after the hazard).
# List 31 (session 29: a car factory, a shopping mall, a forest and sawmill, a fire station) taught "hit the red
# button" / "red button" as stops, forwarder as a machine, 把电拉了, 往后退 as a lead, 别闹了 as banter, 刹车管 and
# 急刹车对… (管, 对 after a stop phrase), 测试过 as narration, 闻闻 as a set phrase. Its false stops are children and
# dogs addressed ("Stop it, Max, sit.") and "full stop" (kept out: urgent in lists 12, 24, 25).
# List 32 (session 29: a recycling plant, a bakery and food factory, a university campus, a play centre and bowling
# alley): first run served 153/154 en, 127/129 zh; taught mixer and 包装机器人 as machines, 掉东西 as a hazard,
# "password" as a set phrase. Its false stops are pets and people addressed ("Max, stop! Drop the frisbee!").
# List 33 (session 30: a beach and water park, a greenhouse and orchard, a high-rise building site, a family car in
# traffic): first run served 155/159 en, 134/137 zh; taught sorter, boom, 摩托艇, 挖机 as machines, "stop spraying",
# "beach cleaner" as a lead, "blocked" as a hazard, "stop loss" and "the manual says" as set phrase and reading, 你们俩
# as banter. Its misses are a stop said after the hazard (栏杆没抬起来停); its false stops dogs addressed ("Buddy, stop,
# leave the sandwich alone!"), "stop eating the strawberries" and "stop at the school gate at three".
# List 34 (session 30: an ice rink, a dairy farm, a container port, a mountain road in a camper van): first run
# served 160/164 en, 117/119 zh, 4 ; 8 false stops (4 of the Chinese from the n-gram model: rules for later, "如果有孩子
# 跑上冰面，马上停下", which the word lists now overrule); taught bulls as a hazard, 龙门吊 as a machine, 起升 as a
# motion after 停止, 打滑 as a hazard, "the sign says" / 测过了 as readings, "look at the size of" / 停车让行 / 幸好 as
# set phrases, 不说这个了 as banter. Its misses are stops said last ("the bridge is out stop") and 别放别放.
# Then (session 30) a pet told to sit or to leave something alone is banter ("Rex, stop! Leave the sandwich alone.",
# "旺财，坐下！别动！"): 6 near misses of lists 26-33 and 4 blind-set lines fewer, no urgent line lost.
# List 35 (session 30: a steelworks, a riding school, winter roads, a printing works): first run served 142/145 en,
# 111/113 zh, 9 ; 9 false stops; taught charger, spreader, press (a printing press: "stop the press" is urgent there,
# so the idiom keeps only its plural, "stop the presses", and list 30's "Stop the press, we just had a hole in one!"
# is a false stop again: the safe error), 行车, 装料机 as machines, "both of you" as banter, "used to", 去年 as
# narration, idioms and names of things as set phrases ("stop at nothing", 停机时间).
# List 36 (session 31: a tunnel-boring site, a drive-through, a chemical plant, a school at the bell): first run
# served 136/142 en, 110/113 zh, 12 ; 9 false stops; taught pump, "cutter head", "man rider", 别翻了, 慢着慢着; its
# false stops were mostly people and dogs told off ("Stop it, Jake, give her the ball back.", 小白，站住，别追那只鸟！),
# narration (刹车早上检查过了, "she laughed") and plans ("stop at gate B on the way back this afternoon").
# List 37 (session 31: a racing circuit, a fishing harbour, a data centre, a wedding venue): first run served 122/125
# en, 106/107 zh, 7 ; 5 false stops; taught "belay that", 摇臂, 刹车平衡 (a setting), "for the photo".
# List 38 (session 31: a driving school, a cruise ship, a wind farm being built, a children's party): first run served
# 109/110 en, 89/93 zh, 4 ; 5 false stops; taught tender, 练习车, 起重机, 升降机 as machines, 喝口茶 as a break.
# List 39 (session 31: an industrial laundry, a cable car station, a brewery, a night market): first run served
# 139/142 en, 107/109 zh, 4 ; 9 false stops; taught washer, 吊厢 as machines, leak, jammed, 油锅 as hazards, "repeat
# after me" / 跟我念 as set phrases, 每个月 as a routine, 刹车声音 and 停下来加油 as talk about a machine.
# List 40 (session 32: an aquarium, a scrapyard, a pharmacy warehouse, a skate park): first run served 136/140 en,
# 94/98 zh, 8 ; 3 false stops; taught sweeper, magnet, lift, boat as machines, skater, swinging as hazards, 别压了,
# "pause pause pause", "should the light turn red" as a condition, "means stop" and 停车标志 as set phrases.
# List 41 (session 32: a freezer warehouse, a circus, an EV charging hub, an observatory and rocket test site): first
# run served 136/137 en, 99/99 zh (the first first run at 99 % in both languages), 1 ; 7 false stops;
# taught "dock plates", lions, "starp starp", and 太牛了, 别刹, 按钮在, 休息 as set phrases.
# List 42 (session 33: a car repair garage, a theatre backstage, canal locks, an animal shelter): first run served
# 169/174 en, 128/131 zh, 8 ; 3 false stops; taught ramp, flies, table as machines, "heads up", "low bridge", 前面有 as
# hazards, 关掉发动机, 熄火, 看着点, "after you've" and "in an emergency" as conditions, "brake light's", 刹车台.
# List 43 (session 33: an airport apron, a dairy farm, a hospital ward, a car park with a car wash and a valet car):
# first run served 135/138 en, 100/102 zh, 5 ; 6 false stops; taught jackknifing, "window's down", 还有人, 没关 as
# hazards, "stop sign's", "stop the video", "stop the pa", 停下脚步, 停车费 as set phrases.
# List 44 (session 34: a supermarket and its loading bay, a ski resort, a school at pick-up time, a vineyard): first run
# served 125/126 en, 82/82 zh, 10 ; 5 false stops; taught that a time not now ("someday", "sooner or later", 迟早, a
# condition) overrules a warning, that a quoted stop word inside a sentence is mentioned, "stop at the …" as a stop on
# a route, "back off" said twice, 你俩 and 别吵了 as banter.
# List 45 (session 34: a harbour and ferry terminal, a film studio, a museum and library, a hotel with luggage robots):
# first run served 127/128 en, 114/114 zh, 7 ; 7 false stops.
# List 46 (session 35: a bakery and food factory, a safari park, a railway depot, an indoor play centre): first run
# served 131/135 en, 117/120 zh, 10 ; 6 false stops; taught `appliance` words (music, 空调), "look out the window",
# 往窗外看, 歇口气 and "stop the music" as set phrases, "noon" as a condition, "warm enough", 号线 as a machine, and a
# habit with a person's own after it ("stop hitting your brother") as told off.
# List 47 (session 35: a vineyard at harvest, a parcel sorting centre, a bowling alley and arcade, a valet car park):
# first run served 116/118 en, 118/119 zh, 10 ; 13 false stops; taught 幸亏, 换个话题 and "new paragraph" as set
# phrases and 后来 as narration.
# List 48 (session 36: an airport baggage hall and apron, a dairy farm, hospital corridors, a car wash, a building site,
# a university library, a theme park, a petrol station): first run served 102/104 en, 113/118 zh, 3 ; 9 false stops;
# taught 停止作业 as a halt phrase and "just" as a lead ("just stop, the straps came loose").
# List 49 (session 36: a zoo and aquarium backstage, a golf course, a garden centre, a multi-storey car park, a
# farmers' market, an underground garage, a high-speed railway station, a care home): first run served 95/97 en,
# 113/113 zh, 5 ; 6 false stops.
# List 50 (session 37: a ski resort, a fishing harbour, a film set, a recycling plant, a container terminal, an
# orchard, and a bakery factory): first run served 90/95 en, 113/113 zh, 6 ; 8 false stops; taught
# "cut the power to", "don't back up", overboard and tripped, danger signs, "called" as a name, and in Chinese times
# long past (小时候, 那会儿), 差点 and 可能 as no warning for now, 掉光 and 会自己停下 as no stop.
# List 51 (session 37: an open-pit mine, a children's adventure playground, a cold-storage warehouse, a wedding venue,
# a steelworks, a children's play park, motorway roadworks, a cruise ship deck): first run served 89/92 en, 114/115
# zh, 2 ; 15 false stops (the same with and without list 50's words); taught 停车 and 急停 before a noun (停车区,
# 停车收费员, 急停记录), 停车让人 as a rule, 不是叫你 as said to someone else, 以为 (thought) as no warning,
# "somebody stop me" as a set phrase, "coming down" and rocks as hazards.
# List 52 (session 37: a sawmill and timber yard, a marina, a TV news studio, a school sports day, a smart greenhouse
# farm, a metro depot, a shopping-mall car park, a fire-station training ground): first run served 108/116 en,
# 115/117 zh, 7 ; 4 false stops (the same with and without list 51's words); taught "kill the power on", "emergency
# stop on", "pack it in", saw and camera as machines, "a crack" and "heading straight for" as hazards, eating as no
# hazard (a habit: "stop eating my sandwiches"), modesty and word games as banter, 刹车不灵 and 歌词.
# List 53 (session 37: a quarry and asphalt plant, a leisure centre and pool, a container ship, a music festival, a
# logistics park, a community park, a coal mine, a university laboratory building): first run served 94/99 en,
# 116/116 zh, 5 ; 7 false stops.
# List 54 (session 38: an airport apron, a hospital, a vineyard, a car wash, a building site, a metro station, a
# livestock farm, motorway services): first run served 103/107 en, 115/116 zh, 5 ; 6 false stops (with the n-gram
# weights of lists 1-53: 105/107); taught snapped and "came loose" as hazards, a wash as a machine, trip plans,
# "next month" and an inverted "should a …" as conditions, "and i quote", 别推了 said twice, 被夹, 停车杆, 要不是.
# List 55 (session 38: a car ferry, a zoo and aquarium, a road tunnel, a golf club, a paper mill, a market, a home
# kitchen and garage, a driving school): first run served 107/110 en, 107/107 zh, 7 ; 20 false stops (the n-gram
# weights of lists 1-53; 106/110 with the old weights); taught "that's it" as a lead, a tunnel alarm going off as a
# hazard, schedules and photo poses as set phrases, and in Chinese rules (之前要, 不能超过), a driving coach's saying,
# a false alarm (虚惊一场), a self-correction (我是说), homework, and 急停 / 刹车 before 一次, 按钮, 踩下去.
# List 56 (session 38: a travelling fair and circus, a printing works, an underground car park, a riding stables, a
# hotpot kitchen, a high-speed rail station, a reservoir dam, a kindergarten): first run served 107/108 en, 123/124 zh
# (both ≥ 99 %), 7 ; 16 false stops; taught carousel, "fell off", "she said", catchphrases, "danger money", and in
# Chinese a classroom (看黑板, 新词, 怎么写, 记住, 只要, 下次), 我想想, 测试一下, 洗手, and 停止导航 as no stop.
# List 57 (session 38: a shipyard dry dock, a DIY store, a ski-lift base and mountain road, a children's ward, a
# parcel sorting centre, an old residential compound, a car dealership and repair shop, a seaside resort): first run
# served 115/120 en, 115/115 zh, 3 ; 5 false stops; taught "hold hold", 吹牛 as banter, 快拍快拍 and 小心脚下.
# List 58 (session 38: a water treatment works, a school run, a packhouse, a bus route, an oil rig, a campus, a tea
# garden, a mall play area): first run served 114/115 en, 117/117 zh, 6 ; 12 false stops; with lists 26-57 it taught
# the `person` rule (a kin or pet word said first addresses a person: 宝宝别动，妈妈给你拍张照; "babe stop, …"), "i
# thought", "our stop", 台词, 写在, 播报 (a voice feature), 技术不错 and 太猛 as talk about driving.
BLIND_FLOORS = {"reflex_stops.json": {"en": 0.99, "zh": 0.99}, "reflex_stops_2.json": {"en": 0.99, "zh": 1.0},
                "reflex_stops_3.json": {"en": 0.99, "zh": 0.99}, "reflex_stops_4.json": {"en": 0.94, "zh": 0.99},
                "reflex_stops_5.json": {"en": 0.98, "zh": 0.96}, "reflex_stops_6.json": {"en": 0.95, "zh": 0.95},
                "reflex_stops_7.json": {"en": 1.0, "zh": 1.0}, "reflex_stops_8.json": {"en": 0.98, "zh": 0.99},
                "reflex_stops_9.json": {"en": 0.98, "zh": 1.0}, "reflex_stops_10.json": {"en": 1.0, "zh": 1.0},
                "reflex_stops_11.json": {"en": 1.0, "zh": 0.99}, "reflex_stops_12.json": {"en": 0.99, "zh": 0.98},
                "reflex_stops_13.json": {"en": 0.92, "zh": 0.79},
                "reflex_stops_14.json": {"en": 0.96, "zh": 0.92},
                "reflex_stops_15.json": {"en": 0.96, "zh": 0.97},
                "reflex_stops_16.json": {"en": 0.99, "zh": 0.98}, "reflex_stops_17.json": {"en": 0.93, "zh": 0.94},
                "reflex_stops_18.json": {"en": 0.99, "zh": 0.96}, "reflex_stops_19.json": {"en": 0.95, "zh": 0.95},
                "reflex_stops_20.json": {"en": 0.96, "zh": 0.88}, "reflex_stops_21.json": {"en": 0.94, "zh": 0.86},
                "reflex_stops_22.json": {"en": 0.93, "zh": 0.90}, "reflex_stops_23.json": {"en": 0.94, "zh": 0.90},
                "reflex_stops_24.json": {"en": 0.93, "zh": 0.89}, "reflex_stops_25.json": {"en": 0.71, "zh": 0.78},
                "reflex_stops_26.json": {"en": 0.90, "zh": 0.91},
                "reflex_stops_27.json": {"en": 0.89, "zh": 0.84}, "reflex_stops_28.json": {"en": 0.89, "zh": 0.92},
                "reflex_stops_29.json": {"en": 0.90, "zh": 0.92}, "reflex_stops_30.json": {"en": 0.91, "zh": 0.88},
                "reflex_stops_31.json": {"en": 0.89, "zh": 0.91}, "reflex_stops_32.json": {"en": 0.93, "zh": 0.89},
                "reflex_stops_33.json": {"en": 0.91, "zh": 0.94}, "reflex_stops_34.json": {"en": 0.90, "zh": 0.81},
                "reflex_stops_35.json": {"en": 0.91, "zh": 0.88}, "reflex_stops_36.json": {"en": 0.86, "zh": 0.88},
                "reflex_stops_37.json": {"en": 0.91, "zh": 0.86}, "reflex_stops_38.json": {"en": 0.95, "zh": 0.89},
                "reflex_stops_39.json": {"en": 0.87, "zh": 0.94}, "reflex_stops_40.json": {"en": 0.92, "zh": 0.79},
                "reflex_stops_41.json": {"en": 0.89, "zh": 0.90},
                "reflex_stops_42.json": {"en": 0.83, "zh": 0.86}, "reflex_stops_43.json": {"en": 0.94, "zh": 0.92},
                "reflex_stops_44.json": {"en": 0.97, "zh": 0.79}, "reflex_stops_45.json": {"en": 0.96, "zh": 0.93},
                "reflex_stops_46.json": {"en": 0.91, "zh": 0.89}, "reflex_stops_47.json": {"en": 0.94, "zh": 0.95},
                "reflex_stops_48.json": {"en": 0.95, "zh": 0.91}, "reflex_stops_49.json": {"en": 0.93, "zh": 0.98},
                "reflex_stops_50.json": {"en": 0.86, "zh": 0.96}, "reflex_stops_51.json": {"en": 0.86, "zh": 0.95},
                "reflex_stops_52.json": {"en": 0.89, "zh": 0.92}, "reflex_stops_53.json": {"en": 0.85, "zh": 0.93},
                "reflex_stops_54.json": {"en": 0.83, "zh": 0.94}, "reflex_stops_55.json": {"en": 0.86, "zh": 0.94},
                "reflex_stops_56.json": {"en": 0.82, "zh": 0.92}, "reflex_stops_57.json": {"en": 0.80, "zh": 0.96},
                "reflex_stops_58.json": {"en": 0.94, "zh": 0.93}}
# "Hold up, are we still picking up Sam…?", "Brakes, tyres or oil — which one's due first?": a stop, a pause, a question
# "宝宝别动 妈妈给你擦擦脸", "别动啊 衣服上有根线", "别动 我帮你把头发上的叶子拿下来": 别动 said to a person, calmly
# List 14: "The sticker reads emergency stop, test monthly." and "书上写着 遇到危险立即按下急停按钮" (a hazard word
# inside a reading), "I can do a skid stop on my scooter!", "住手吧 别再买衣服了" (to a person).
BLIND_FALSE_STOPS = {"reflex_stops_12.json": {"en": 2}, "reflex_stops_13.json": {"zh": 2},
                     "reflex_stops_14.json": {"en": 2}, "reflex_stops_15.json": {"zh": 2},
                     "reflex_stops_17.json": {"en": 2, "zh": 1}, "reflex_stops_18.json": {"zh": 1},
                     "reflex_stops_19.json": {"en": 1, "zh": 1}, "reflex_stops_20.json": {"en": 1},
                     "reflex_stops_23.json": {"zh": 1}, "reflex_stops_25.json": {"en": 2, "zh": 2},
                     "reflex_stops_26.json": {"en": 2, "zh": 1}, "reflex_stops_27.json": {"en": 1, "zh": 3},
                     "reflex_stops_28.json": {"en": 3, "zh": 2}, "reflex_stops_29.json": {"en": 1, "zh": 3},
                     "reflex_stops_30.json": {"en": 3, "zh": 1}, "reflex_stops_31.json": {"en": 2, "zh": 0},
                     "reflex_stops_32.json": {"en": 2, "zh": 2},
                     "reflex_stops_33.json": {"en": 0, "zh": 1}, "reflex_stops_34.json": {"en": 1, "zh": 1},
                     "reflex_stops_35.json": {"en": 3, "zh": 5}, "reflex_stops_36.json": {"en": 4, "zh": 0},
                     "reflex_stops_37.json": {"en": 3, "zh": 2}, "reflex_stops_38.json": {"en": 2, "zh": 3},
                     "reflex_stops_39.json": {"en": 2, "zh": 4}, "reflex_stops_40.json": {"en": 4, "zh": 2},
                     "reflex_stops_41.json": {"zh": 1}, "reflex_stops_42.json": {"en": 3, "zh": 1},
                     "reflex_stops_43.json": {"en": 1, "zh": 3}, "reflex_stops_44.json": {"en": 2, "zh": 1},
                     "reflex_stops_45.json": {"en": 4, "zh": 4}, "reflex_stops_46.json": {"en": 5, "zh": 2},
                     "reflex_stops_47.json": {"en": 6, "zh": 8}, "reflex_stops_48.json": {"en": 2, "zh": 6},
                     "reflex_stops_49.json": {"en": 2, "zh": 4}, "reflex_stops_50.json": {"en": 2, "zh": 2},
                     "reflex_stops_51.json": {"zh": 6}, "reflex_stops_52.json": {"en": 4, "zh": 2},
                     "reflex_stops_53.json": {"en": 3, "zh": 7}, "reflex_stops_54.json": {"en": 1, "zh": 4},
                     "reflex_stops_55.json": {"en": 3, "zh": 11}, "reflex_stops_56.json": {"en": 4, "zh": 6},
                     "reflex_stops_57.json": {"en": 1, "zh": 1}, "reflex_stops_58.json": {"en": 3, "zh": 6}}


@pytest.mark.parametrize("name", sorted(BLIND_FLOORS))
def test_blind_lists_of_urgent_stops_and_near_misses(name):
    lists = json.loads((BLIND / name).read_text(encoding="utf-8"))
    for lang in ("en", "zh"):
        urgent, near = lists["urgent"][lang], lists["near_miss"][lang]
        assert len(urgent) >= 60 and len(near) >= 60
        missed = [t for t in urgent if not REFLEX.matches(t)]
        assert len(urgent) - len(missed) >= BLIND_FLOORS[name][lang] * len(urgent), (name, lang, missed)
        false_stops = [t for t in near if REFLEX.matches(t)]
        assert len(false_stops) <= BLIND_FALSE_STOPS.get(name, {}).get(lang, 0), (name, lang, false_stops)


@pytest.mark.parametrize("text, fires", [
    ("someday that forklift is going to hit someone if they don't fix it", False), ("那台叉车迟早要撞到人", False),
    ("that forklift is going to hit someone!", True), ("叉车要撞到人了！", True),
    ('"Stop" is the first word we teach the ski school kids.', False), ("我们教小朋友的第一个词就是“停”。", False),
    ('Somebody should write "stop" in big letters on that gate.', False), ('"Stop!" There is a kid behind you!', True),
    ("“停！”前面有人", True), ("stop at the gate on your way out", False), ("back off back off", True),
])
def test_a_time_not_now_or_a_quoted_stop_word_halts_nothing(text, fires):
    """Stop list 44's false stops and its miss (session 34), read by the rules they taught."""
    assert REFLEX.matches(text) is fires


@pytest.mark.parametrize("text, fires", [
    ("空调开，哦不对，关掉关掉", False), ("Stop, no, I mean just pause the song", False),
    ("停！音乐先停，前面有人！", True),
    ("Look out the window, there's a giraffe!", False), ("look out, there's a giraffe!", True),
    ("stop hitting your brother", False), ("stop hitting the wall", True),
    ("turn the heating on, actually off, it's warm enough", False), ("that's far enough", True),
    ("三号线停！", True), ("Look out for the delivery van around noon.", False)])
def test_a_device_that_does_not_move_a_habit_or_a_later_time_halts_nothing(text, fires):
    """Stop list 46's false stops and misses and test set 46's false stops (session 35), read by their rules."""
    assert REFLEX.matches(text) is fires


@pytest.mark.parametrize("text, fires", [
    ("kill the power to the conveyor now", True), ("they cut the power to the whole street last winter", False),
    ("no wait don't back up, the kid's behind you", True), ("stop the boat man overboard", True),
    ("the cameraman tripped hold it hold it", True), ("there are danger signs along the whole cliff path", False),
    ("那会儿我开拖拉机，刹车全靠脚踩", False), ("我小时候差点被收割机轧到", False), ("小心点开，前面可能有人。", False),
    ("扫地机碰到墙会自己停下来。", False), ("秋天一过叶子就快掉光了", False), ("stop 按钮是不是坏了？", False),
    ("停车停车前面有人！", True), ("小心！前面有人！", True), ("那台叉车差点撞到我的车", False)])
def test_power_to_a_machine_overboard_and_times_long_past_read_as_list_50_taught(text, fires):
    """Stop list 50's misses and false stops (session 37), reworded, read by the words they taught."""
    assert REFLEX.matches(text) is fires


@pytest.mark.parametrize("text, fires", [
    ("停车区在大门左边", False), ("急停记录每天交班前要填好", False), ("停车让人是这里的规定", False),
    ("不是叫你，是叫那辆车停下", False), ("吓死我了，我以为它要撞到墙了", False),
    ("someone stop me, I'm on a roll", False),
    ("stop stop the crate is coming down", True), ("停车区有小孩，停车！", True), ("急停！", True)])
def test_a_stop_word_naming_a_place_a_record_or_a_rule_halts_nothing_as_list_51_taught(text, fires):
    """Stop list 51's false stops and misses (session 37), reworded, read by the words they taught."""
    assert REFLEX.matches(text) is fires


@pytest.mark.parametrize("text, fires", [
    ("kill the power on the press", True), ("camera three stop dead", True),
    ("pack it in now, you're hitting the rail", True),
    ("stop the saw I heard a crack", True), ("Jenny stop eating the cake", False),
    ("oh stop, I'm not that good at parking", False), ("我的电动车刹车不灵了，明天去修", False),
    ("停停停是哪首歌的歌词", False), ("stop, the dog is eating the cable", True)])
def test_power_on_a_machine_a_camera_and_a_habit_of_eating_read_as_list_52_taught(text, fires):
    """Stop list 52's misses and false stops (session 37), reworded, read by the words they taught."""
    assert REFLEX.matches(text) is fires


@pytest.mark.parametrize("text", ["Heat the seats, heat the seats, we're going skiing baby!",
                                  "Go to the living room, the kids want to show you their drawing!",
                                  "Rex, stop! Leave the sandwich alone.", "Max, stop! Sit!", "旺财，坐下！别动！"])
def test_a_command_first_is_no_warning_and_a_pet_told_to_sit_is_banter(text):
    """Blind test set 30's excited commands and pets addressed in stop lists 28-33 (session 30)."""
    assert not REFLEX.matches(text)


@pytest.mark.parametrize("text, fires", [("the toddler's right behind you stop", True),
                                         ("no no no no not the pond stop", True),
                                         ("It's a full stop, not a comma.", False),
                                         ("Let's pull in at the servo for a quick stop, no rush.", False)])
def test_a_stop_said_last_after_a_clause_must_end_the_utterance(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("the emergency stop button's sticky, log a maintenance ticket", False),
                                         ("刚才那个小孩一直喊停停停 好好玩", False),
                                         ("there's a kid stop stop", True)])
def test_a_stop_run_said_of_something_else_stays_ruled_out(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("快听车前面有人", True), ("快婷车啊 小孩跑出来了", True),
                                         ("快听歌前面有人唱", False), ("小乐停 地上有水要滑过去了", True)])
def test_a_misheard_halt_before_a_hazard_and_a_name_before_a_paused_stop(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("sidewalk robot stop", True), ("big red tractor halt", True),
                                         ("the bus stop", False), ("Can the car stop itself in an emergency?", False),
                                         ("the robot stop button is sticky", False), ("truck six stop", True),
                                         ("carrier 12 halt", True), ("truck stop", False)])
def test_an_english_machine_noun_may_be_the_address_before_a_stop(text, fires):
    assert REFLEX.matches(text) == fires


@pytest.mark.parametrize("text, fires", [("the window is stuck", False), ("the song is stuck in my head", False),
                                         ("my bag is stuck in the door", True), ("车站到医院有多远", False),
                                         ("stop rolling", True)])
def test_stuck_needs_a_place_and_a_station_is_no_stop(text, fires):
    assert REFLEX.matches(text) == fires


def test_fires_once_per_utterance():
    reflex = StopReflex({"stop": ["stop"]}, remember=2)
    assert reflex.first_fire("u1") and not reflex.first_fire("u1")
    assert reflex.first_fire("u2") and reflex.first_fire("u3") and reflex.first_fire("u1")  # u1 forgotten


@given(st.text(max_size=200))
def test_any_text_is_handled(text):
    assert REFLEX.matches(text) in (True, False)


@pytest.mark.parametrize("text, language", [("导航到西单", "zh-CN"), ("navigate home", "en-US"), ("123 !", "en-US"),
                                            ("call 王伟", "zh-CN"), ("", "en-US"),
                                            ("ok！", "en-US"), ("？！", "zh-CN"), ("導航到臺北", "zh-CN")])
def test_detect_language(text, language):
    assert detect_language(text) == language


def test_session_history_grows_as_a_prefix_and_restarts_from_its_latest_half():
    """Between restarts each history extends the previous one, so the session's cached K/V stays reusable."""
    sessions = Sessions(max_turns=4, max_sessions=2, ttl_s=10.0)
    lengths, prev = [], []
    for i in range(9):
        sessions.add("s", Turn(f"u{i}", f"r{i}"))
        hist = [t.user for t in sessions.history("s")]
        assert hist[-1] == f"u{i}" and len(hist) <= 4
        if len(hist) > len(prev):
            assert hist[:len(prev)] == prev  # extends: a prefix match for the cache
        lengths.append(len(hist))
        prev = hist
    assert lengths == [1, 2, 3, 4, 2, 3, 4, 2, 3]


def test_sessions_keep_recent_turns_and_forget_idle_ones():
    now = [0.0]
    sessions = Sessions(max_turns=2, max_sessions=2, ttl_s=10.0, clock=lambda: now[0])
    for i in range(3):
        sessions.add("a", Turn(f"u{i}", f"r{i}", f"raw{i}"))
    assert [t.user for t in sessions.history("a")] == ["u2"]  # over 2: restarted from the latest half
    sessions.add("a", Turn("u3", "r3"))
    assert [t.user for t in sessions.history("a")] == ["u2", "u3"]
    assert sessions.history("") == [] and sessions.history("never-seen") == []
    sessions.add("b", Turn("x", "y"))
    sessions.add("c", Turn("x", "y"))  # a is the least recently used: forgotten
    assert sessions.history("a") == [] and len(sessions) == 2
    now[0] = 11.0
    assert sessions.history("b") == [] and len(sessions) == 0


@pytest.mark.parametrize("text, stops", [
    ("宝宝别跑了，过来妈妈这儿。", False), ("babe stop, we don't need another lamp", False),
    ("儿子别动！那是热水！", False), ("宝宝在后面 快停", True), ("妈的快停！", True), ("宝宝别动，有车！", True),
    ("honey, stop the car!", True), ("Grandma, stop! There's a dog!", True), ("奶奶，别动，叉车在倒车！", True),
    ("Daddy make it stop! It's chasing me!", True)])
def test_a_stop_said_to_a_child_or_partner_halts_no_machine_unless_a_danger_or_machine_is_named(text, stops):
    """Stop lists 26-57: kin and pet words said first (`person`), then a pause or the stop itself, address a person;
    a kin word as the subject of a danger (宝宝在后面) or a swear (妈的) is no address."""
    assert REFLEX.matches(text) is stops


@pytest.mark.parametrize("text, stops", [("Kids, stop fighting now!", False), ("Kids, stop kicking the seats!", False),
                                         ("Kids, stop!", True), ("stop flipping my sleeve is caught", True),
                                         ("Stop pushing, you're pinning her against the wall!", True)])
def test_a_hazard_told_to_stop_a_habit_is_no_warning_unless_a_danger_follows(text, stops):
    """Test sets 11 and 40, lists 37-38: children told off are no stop of the machine; a danger named after is."""
    assert REFLEX.matches(text) == stops
