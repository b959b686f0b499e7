"""Phrasing templates, enum surface forms and replies for every intent in zh and en.

Template syntax: `{slot}` is a slot placeholder; `[a|b|]` picks one alternative (an empty one makes it optional).
A template may be a (fixed slot values, text) pair, e.g. ({"state": "on"}, "turn on the AC").
A slot placeholder inside an alternative makes the slot optional: "move {direction}[ {distance} meters|]".
"""

from __future__ import annotations

T = {}  # intent -> lang -> list of templates

T["navigate"] = {
    "en": ["navigate to {destination}", "take me to {destination}", "[can|could] you [take|drive] me to {destination}",
           "[get|give] me directions to {destination}", "I [want|need] to go to {destination}",
           "drive to {destination}", "let's go to {destination}", "head to {destination}",
           "start navigation to {destination}", "set the destination to {destination}",
           "how do I get to {destination}", "find [a|the] route to {destination}", "route me to {destination}",
           "I'd like to drive to {destination}", "navigate me to {destination}", "show me the way to {destination}",
           "plot a course to {destination}", "we're going to {destination}", "guide me to {destination}",
           "directions to {destination}", "I need to get to {destination}", "set [a|the] route to {destination}"],
    "zh": ["导航到{destination}", "导航去{destination}", "带我去{destination}", "我要去{destination}",
           "我想去{destination}",
           "开车去{destination}", "去{destination}怎么走", "到{destination}怎么走", "帮我导航到{destination}",
           "规划[一下|]去{destination}的路线", "设置目的地[为|到|]{destination}", "目的地{destination}",
           "{destination}怎么走", "开到{destination}", "我们去{destination}", "送我去{destination}",
           "前往{destination}", "导航{destination}", "查一下去{destination}的路", "给我导航到{destination}",
           "我得去一趟{destination}", "带我到{destination}"],
}
T["cancel_navigation"] = {
    "en": ["stop [the|] navigation", "cancel [the|] [navigation|route]", "end [the|] [route|navigation|guidance]",
           "stop navigating", "I don't need directions anymore", "turn off [the|] [navigation|directions]",
           "quit [the|] navigation", "exit [the|] navigation", "never mind the route", "clear the [route|destination]",
           "stop giving me directions", "we're not going there anymore", "cancel the trip", "abort the route",
           "no more directions", "stop the route guidance", "forget the destination", "cancel navigation mode"],
    "zh": ["取消导航", "停止导航", "结束导航", "退出导航", "不用导航了", "关闭导航", "别导航了", "导航取消",
           "不去那里了", "取消路线", "结束行程", "关掉导航", "我不去了", "导航停止", "把导航关了", "导航结束吧",
           "不需要导航了", "取消目的地"],
}
T["stop"] = {
    "en": ["stop", "stop [right now|now|immediately]", "emergency stop", "halt", "freeze", "stop [the robot|moving]",
           "stop everything", "stop stop stop", "don't move", "hold it", "whoa [stop|whoa]", "stop the car", "brake",
           "hit the brakes", "stop right there", "wait stop", "cease all motion", "abort", "stop it now",
           "everybody stop"],
    "zh": ["停", "停下", "停下来", "快停", "马上停下", "立刻停止", "紧急停止", "急停", "停车", "刹车", "别动",
           "站住", "停止", "停停停", "不要动了", "赶紧停下", "全部停止", "停止运动", "快刹车", "给我停住"],
}
T["set_temperature"] = {
    "en": ["set the temperature to {temperature}[ degrees|]", "[make|set] it {temperature} degrees",
           "{temperature} degrees[ please|]", "change the temperature to {temperature}",
           "I want it at {temperature} degrees", "[turn|set] the [AC|heat|thermostat] to {temperature}",
           "set the {zone} temperature to {temperature} degrees", "make the {zone} {temperature} degrees",
           "set the {zone} to {temperature}[ degrees|]", "{zone} temperature {temperature}",
           "it's too [hot|cold], set it to {temperature}", "adjust the temperature to {temperature} degrees",
           "temperature {temperature}", "[warm|heat] it up to {temperature} degrees", "cool it down to {temperature}",
           "set the temperature to {temperature} degrees for the {zone}", "I'd like {temperature} degrees",
           "put the temperature at {temperature}[ for the {zone}|]"],
    "zh": ["温度调到{temperature}度", "把温度设为{temperature}度", "调到{temperature}度", "{temperature}度",
           "空调[调到|开到]{temperature}度", "我要{temperature}度", "温度{temperature}度",
               "把{zone}温度调到{temperature}度",
           "{zone}调到{temperature}度", "{zone}温度设成{temperature}度", "设置温度{temperature}度",
           "太[热|冷]了，调到{temperature}度", "温度改成{temperature}度", "帮我把温度调到{temperature}度",
           "{zone}空调{temperature}度", "温度设置为{temperature}度", "把{zone}的温度改到{temperature}度",
           "温度降到{temperature}度"],
}
T["climate"] = {
    "en": ["turn {state} the [AC|air conditioning|A/C|air conditioner|climate control]",
           "turn the [AC|air conditioning|air conditioner] {state}", "switch {state} the [AC|air conditioning]",
           "[AC|air conditioning] {state}", ({"state": "on"}, "[start|activate|enable] the [AC|air conditioning]"),
           ({"state": "off"}, "[disable|deactivate|kill] the [AC|air conditioning]"),
           ({"state": "off"}, "I don't need the [AC|air conditioning] anymore"),
           ({"state": "on"}, "can I get some [cool air|AC]"), ({"state": "on"}, "cool the car down"),
           ({"state": "off"}, "the AC is too [cold|loud], turn it off"), "could you switch the AC {state}",
           ({"state": "on"}, "it's really hot in here, AC on"), "put the air conditioning {state}"],
    "zh": ["{state}空调", "把空调{state}", "空调{state}", "帮我{state}空调", "{state}一下空调",
           ({"state": "on"}, "开冷气"), ({"state": "on"}, "开一下冷风"), ({"state": "off"}, "空调关了吧"),
           ({"state": "off"}, "不要空调了"), ({"state": "off"}, "关冷气"), "麻烦把空调{state}",
           ({"state": "on"}, "好热啊，开空调"), "请{state}车里的空调"],
}
T["window"] = {
    "en": ["{action} the window", "{action} the {position} window", "{action} my window",
           "{action} the {position} window [a bit|a little|]", ({"position": "all"}, "{action} all the windows"),
           ({"position": "all"}, "{action} every window"), ({"action": "open"}, "crack the {position} window"),
           ({"action": "open"}, "let some fresh air in"), ({"action": "close"},
            "it's [noisy|windy|cold], close the windows"),
           ({"action": "close"}, "[windows|window] up"), ({"action": "open"}, "[windows|window] down"),
           "can you {action} the {position} window", "please {action} the windows",
           ({"action": "close", "position": "rear"}, "close the back windows")],
    "zh": ["{action}车窗", "把车窗{action}", "{action}{position}车窗", "把{position}的窗户{action}",
           "{position}车窗{action}",
           "{action}窗户", "车窗{action}一点", "帮我{action}一下窗户", ({"position": "all"}, "{action}所有车窗"),
           ({"position": "all"}, "把车窗全部{action}"), ({"action": "open"}, "开点窗透透气"),
           ({"action": "close"}, "窗户关上吧"), "把{position}窗户{action}一下", "{action}一下{position}的窗"],
}
T["play_music"] = {
    "en": ["play {query}", "play some {query}", "play songs by {query}", "I want to [hear|listen to] {query}",
           "put on {query}", "[can|could] you play {query}", "play the song {query}", "play music by {query}",
           "I'm in the mood for {query}", "shuffle {query}", "start playing {query}", "let's listen to {query}",
           "play me {query}", "queue up {query}", "play the album {query}", "play something by {query}",
           "I'd like to hear {query}", "throw on some {query}"],
    "zh": ["播放{query}", "我想听{query}", "来一首{query}", "放[点|一首|]{query}", "播放{query}的歌", "听{query}",
           "放{query}的歌", "给我放{query}", "来点{query}", "我要听{query}", "打开音乐播放{query}",
           "帮我找一下{query}", "播一下{query}", "随便放点{query}", "放一首{query}的歌", "我想听{query}的专辑",
           "来首{query}", "切到{query}"],
}
T["media_control"] = {
    "en": [({"action": "pause"}, "pause [the music|the song|it|playback|]"), ({"action": "pause"}, "stop the music"),
           ({"action": "pause"}, "stop playing music"), ({"action": "pause"}, "hold the music"),
           ({"action": "resume"}, "resume [the music|playback|]"), ({"action": "resume"}, "[continue|keep] playing"),
           ({"action": "resume"}, "unpause"), ({"action": "resume"}, "play the music again"),
           ({"action": "next"}, "next [song|track]"), ({"action": "next"}, "skip [this song|this track|it]"),
           ({"action": "next"}, "play the next [song|track|one]"), ({"action": "next"}, "I don't like this song, next"),
           ({"action": "previous"}, "previous [song|track]"), ({"action": "previous"}, "go back [a song|one track]"),
           ({"action": "previous"}, "play the previous [song|track]"), ({"action": "previous"},
            "back to the last song"),
           ({"action": "volume_up"}, "turn [it|the volume|the music] up"), ({"action": "volume_up"}, "louder"),
           ({"action": "volume_up"}, "volume up"), ({"action": "volume_up"}, "increase the volume"),
           ({"action": "volume_up"}, "I can't hear the music"), ({"action": "volume_down"},
            "turn [it|the volume] down"),
           ({"action": "volume_down"}, "quieter"), ({"action": "volume_down"}, "volume down"),
           ({"action": "volume_down"}, "lower the volume"), ({"action": "volume_down"}, "it's too loud")],
    "zh": [({"action": "pause"}, "暂停"), ({"action": "pause"}, "暂停播放"), ({"action": "pause"}, "停止播放"),
           ({"action": "pause"}, "音乐停一下"), ({"action": "pause"}, "先别放了"), ({"action": "pause"}, "把歌停了"),
           ({"action": "resume"}, "继续播放"), ({"action": "resume"}, "继续"), ({"action": "resume"}, "接着放"),
           ({"action": "resume"}, "恢复播放"), ({"action": "resume"}, "接着听"), ({"action": "next"}, "下一首"),
           ({"action": "next"}, "切歌"), ({"action": "next"}, "换一首"), ({"action": "next"}, "跳过这首"),
           ({"action": "next"}, "播放下一首"), ({"action": "previous"}, "上一首"), ({"action": "previous"}, "上一曲"),
           ({"action": "previous"}, "返回上一首"), ({"action": "previous"}, "再放刚才那首"),
           ({"action": "volume_up"}, "大声点"), ({"action": "volume_up"}, "音量调大"),
           ({"action": "volume_up"}, "声音大一点"), ({"action": "volume_up"}, "听不清，大声一点"),
           ({"action": "volume_up"}, "把声音开大"), ({"action": "volume_down"}, "小声点"),
           ({"action": "volume_down"}, "音量调小"), ({"action": "volume_down"}, "声音小一点"),
           ({"action": "volume_down"}, "太吵了"), ({"action": "volume_down"}, "把声音关小")],
}
T["call"] = {
    "en": ["call {contact}", "phone {contact}", "dial {contact}", "give {contact} a call", "ring {contact}",
           "[can you|please] call {contact}[ for me|]", "I need to call {contact}", "make a call to {contact}",
           "get {contact} on the phone", "start a call with {contact}", "video call {contact}",
           "connect me to {contact}", "let me talk to {contact}", "place a call to {contact}", "call up {contact}",
           "I want to phone {contact}"],
    "zh": ["打电话给{contact}", "给{contact}打电话", "呼叫{contact}", "拨打{contact}的电话", "打给{contact}",
           "联系{contact}", "给{contact}打个电话", "帮我打给{contact}", "我要给{contact}打电话", "拨{contact}",
           "跟{contact}视频", "接通{contact}", "给{contact}拨个电话", "帮我呼叫{contact}", "我想跟{contact}通话",
           "电话打给{contact}"],
}
T["seat_heating"] = {
    "en": ["turn {state} [the|my] seat [heating|heater|warmer]", "turn {state} the {seat} seat heater",
           "[heated seat|seat heating] {state}", "switch {state} the heated seats",
           ({"state": "on"}, "warm up my seat"), ({"state": "on"}, "my seat is cold"),
           ({"state": "on"}, "heat the {seat} seat"), ({"state": "on"}, "[activate|enable] seat heating"),
           ({"state": "off"}, "my seat is too hot"), ({"state": "off"}, "[disable|stop] the seat heating"),
           ({"state": "off"}, "the {seat} seat is too warm"), "switch the {seat} seat heating {state}",
           "seat heater {state} for the {seat}"],
    "zh": ["{state}座椅加热", "把座椅加热{state}", "座椅加热{state}", "{state}{seat}座椅加热", "{seat}座椅加热{state}",
           "{state}一下{seat}的座椅加热", ({"state": "on"}, "座椅太凉了"), ({"state": "on"}, "加热一下座椅"),
           ({"state": "on"}, "我的座位好冷"), ({"state": "off"}, "座椅太烫了"), ({"state": "off"}, "不要座椅加热了"),
           "帮我把{seat}的座椅加热{state}", "{state}{seat}的加热座椅"],
}
T["robot_move"] = {
    "en": ["move {direction}[ {distance} meters|]", "go {direction}[ {distance} meters|]", "[drive|roll] {direction}",
           "move {distance} [meters|metres] {direction}", "{direction} {distance} meters",
           ({"direction": "backward"}, "back up[ {distance} meters|]"), "step {direction}",
           "move {direction} a bit", "go {direction} by {distance} meters",
           ({"direction": "forward"}, "come forward[ {distance} meters|]"), "travel {direction} {distance} meters",
           "can you move {direction}[ {distance} meters|]", "shift {direction} {distance} metres",
           "robot, move {direction}"],
    "zh": ["向{direction}移动", "往{direction}走{distance}米", "{direction}移动{distance}米",
           "向{direction}走{distance}米",
           "往{direction}挪一点", "往{direction}走", ({"direction": "forward"}, "前进[{distance}米|]"),
           ({"direction": "backward"}, "后退[{distance}米|]"), ({"direction": "left"}, "左转"),
           ({"direction": "right"}, "右转"), "向{direction}挪{distance}米", "朝{direction}走[{distance}米|]",
           "你往{direction}移动{distance}米", "机器人向{direction}走"],
}
T["robot_go_to"] = {
    "en": ["go to {location}", "move to {location}", "head [to|over to] {location}", "drive over to {location}",
           "go over to {location}", "come to {location}", "return to {location}", "can you go to {location}",
           "robot, go to {location}", "get over to {location}", "proceed to {location}",
           "make your way to {location}", "wait for me in {location}", "go wait at {location}",
           "roll over to {location}", "go back to {location}"],
    "zh": ["去{location}", "到{location}去", "移动到{location}", "走到{location}", "你去{location}[一下|]",
           "去{location}那边", "回到{location}", "到{location}来", "你到{location}", "去{location}等我",
           "挪到{location}", "去一趟{location}", "跑到{location}", "机器人去{location}", "你回{location}",
           "过去{location}那边"],
}
T["robot_pick"] = {
    "en": ["pick up {object}", "grab {object}", "pick {object} up", "take {object}", "get {object}", "fetch {object}",
           "can you pick up {object}", "lift {object}", "hand me {object}", "bring me {object}",
           "grab {object} for me", "I need {object}", "collect {object}", "hold {object}", "pass me {object}",
           "could you get me {object}"],
    "zh": ["拿起{object}", "把{object}拿起来", "捡起{object}", "帮我拿{object}", "抓起{object}", "拿一下{object}",
           "去拿{object}", "把{object}递给我", "给我拿{object}", "取{object}", "帮我把{object}拿过来", "拿{object}",
           "抓住{object}", "把{object}捡起来", "我要{object}", "帮我取一下{object}"],
}
T["robot_place"] = {
    "en": ["put {object} [on|in] {location}", "place {object} [on|in] {location}", "put it [on|in] {location}",
           "drop {object} [in|at] {location}", "leave {object} [in|on|at] {location}",
           "set {object} down on {location}", "put that down [on|in] {location}", "place it [at|in|on] {location}",
           "move {object} to {location}", "take {object} to {location}", "carry {object} to {location}",
           "drop it off at {location}", "deliver {object} to {location}", "bring {object} to {location}",
           "put {object} back [in|on] {location}", "stick {object} in {location}"],
    "zh": ["把{object}放到{location}", "把{object}放在{location}", "放到{location}", "{object}放到{location}去",
           "把它放到{location}", "帮我把{object}送到{location}", "把{object}拿到{location}", "把{object}搬到{location}",
           "把这个放到{location}", "将{object}放置在{location}", "把{object}放回{location}", "放在{location}",
           "把{object}送去{location}", "把那个放到{location}", "{object}放{location}", "把{object}丢到{location}"],
}

# chit-chat and out-of-domain requests -> none; each category has its own reply
NONE = {
    "greeting": {
        "en": ["hello", "hi there", "hey buddy", "good [morning|afternoon|evening]", "how are you [doing|today]",
               "what's up", "hey, how's it going", "nice to meet you"],
        "zh": ["你好", "嗨", "早上好", "晚上好", "你好啊", "在吗", "哈喽", "最近怎么样", "下午好"],
    },
    "thanks": {
        "en": ["thank you", "thanks [a lot|so much]", "great, thanks", "that's perfect, thank you", "cheers",
               "thanks, that helps", "much appreciated"],
        "zh": ["谢谢", "谢谢你", "多谢", "太好了谢谢", "辛苦了", "感谢", "谢啦"],
    },
    "identity": {
        "en": ["who are you", "what's your name", "what can you do", "are you a robot", "who made you",
               "what are you", "tell me about yourself"],
        "zh": ["你是谁", "你叫什么名字", "你能做什么", "你是机器人吗", "谁开发的你", "你会干什么", "介绍一下你自己"],
    },
    "weather": {
        "en": ["what's the weather like [today|tomorrow]", "will it rain [today|tomorrow]", "is it cold outside",
               "how hot is it outside", "do I need an umbrella", "is it going to snow", "what's the forecast"],
        "zh": ["今天天气怎么样", "明天会下雨吗", "外面冷不冷", "今天外面多少度", "要带伞吗", "明天会下雪吗",
               "天气预报"],
    },
    "time": {
        "en": ["what time is it", "what's the date today", "what day is it", "how late is it", "what's the time"],
        "zh": ["现在几点", "今天几号", "今天星期几", "现在几点了", "几点钟了"],
    },
    "joke": {
        "en": ["tell me a joke", "say something funny", "make me laugh", "do you know any jokes", "tell me a story"],
        "zh": ["讲个笑话", "说点好玩的", "逗我开心", "你会讲笑话吗", "讲个故事"],
    },
    "unsupported": {
        "en": ["order a pizza", "book a flight", "send an email to my boss", "what's the capital of France",
               "set an alarm for seven", "read my messages", "turn on the lights", "lock the doors",
               "open the trunk", "open the door", "how far is the moon", "translate hello into French",
               "add milk to my shopping list", "what's two plus two", "remind me to buy eggs", "find a gas station",
               "check my calendar", "buy a new phone", "wash the car", "charge my phone"],
        "zh": ["帮我点个外卖", "订一张机票", "发个邮件给老板", "中国的首都是哪里", "设个七点的闹钟", "读一下我的短信",
               "开灯", "锁车门", "打开后备箱", "打开车门", "一加一等于几", "提醒我买鸡蛋", "翻译一下你好",
               "查一下我的日程", "帮我买个手机", "洗车", "月亮有多远", "帮我订个酒店", "打开天窗", "开一下雨刷"],
    },
    "smalltalk": {
        "en": ["I'm tired", "I'm hungry", "okay", "never mind", "nothing", "just talking", "huh", "you're funny",
               "good job", "nice", "I went to the mall yesterday", "my phone is dead",
               "I called my mom this morning", "navigation apps are so annoying", "the music yesterday was great",
               "it's a nice day", "I like this car", "the kitchen is a mess", "I don't know", "hmm let me think"],
        "zh": ["我好累", "我饿了", "好的", "算了", "没事", "随便聊聊", "啥", "你真有趣", "干得好", "不错",
               "我昨天去了商场", "我手机没电了", "我今天给我妈打过电话了", "这导航软件真难用", "外面温度好高",
               "今天天气真好", "我喜欢这辆车", "厨房好乱", "不知道", "让我想想"],
    },
}
NONE_REPLIES = {
    "greeting": {"en": "Hello! How can I help you?", "zh": "你好！有什么可以帮你？"},
    "thanks": {"en": "You're welcome.", "zh": "不客气。"},
    "identity": {"en": "I'm your on-board assistant. I can navigate, play music, make calls and control the car "
                       "and the robot.", "zh": "我是车载助手，可以导航、放音乐、打电话，还能控制车辆和机器人。"},
    "weather": {"en": "Sorry, I can't check the weather yet.", "zh": "抱歉，我暂时还不能查询天气。"},
    "time": {"en": "Sorry, I can't check the time yet.", "zh": "抱歉，我暂时还不能查看时间。"},
    "joke": {"en": "Why did the robot cross the road? Because it was programmed to.",
             "zh": "机器人为什么过马路？因为程序让它过去。"},
    "unsupported": {"en": "Sorry, I can't do that yet.", "zh": "抱歉，这个我暂时还做不到。"},
    "smalltalk": {"en": "Okay, I'm here if you need me.", "zh": "好的，有需要随时叫我。"},
}

# surface forms of enum values inside user text
ENUM_SURFACE = {
    "en": {
        "zone": {"driver": ["driver side", "driver's side", "driver seat"], "passenger": ["passenger side",
                 "passenger seat"],
                 "all": ["whole car", "entire cabin", "all zones"]},
        "state": {"on": ["on"], "off": ["off"]},
        "action": {"open": ["open", "roll down", "lower"], "close": ["close", "roll up", "shut", "raise"]},
        "position": {"driver": ["driver", "driver's", "driver side"], "passenger": ["passenger", "passenger side"],
                     "rear": ["rear", "back"], "all": ["all"]},
        "seat": {"driver": ["driver", "driver's", "driver side"], "passenger": ["passenger", "front passenger"]},
        "direction": {"forward": ["forward", "ahead", "forwards"], "backward": ["backward", "back", "backwards"],
                      "left": ["left", "to the left"], "right": ["right", "to the right"]},
    },
    "zh": {
        "zone": {"driver": ["主驾", "主驾驶", "驾驶位"], "passenger": ["副驾", "副驾驶", "乘客那边"],
                 "all": ["全车", "所有区域", "前后排"]},
        "state": {"on": ["打开", "开", "开启"], "off": ["关闭", "关掉", "关上", "关"]},
        "action": {"open": ["打开", "开", "摇下", "降下"], "close": ["关上", "关闭", "关", "摇上", "升起"]},
        "position": {"driver": ["主驾", "主驾驶", "左前"], "passenger": ["副驾", "副驾驶", "右前"],
                     "rear": ["后排", "后面", "后座"], "all": ["所有"]},
        "seat": {"driver": ["主驾", "主驾驶", "驾驶座"], "passenger": ["副驾", "副驾驶", "乘客"]},
        "direction": {"forward": ["前", "前面"], "backward": ["后", "后面"], "left": ["左", "左边"],
                      "right": ["右", "右边"]},
    },
}
# which enum slots a template may fill at random (the others need fixed values)
RANDOM_ENUMS = {"zone", "state", "action", "position", "seat", "direction"}

# enum values inside replies
REPLY_ENUM = {
    "en": {"zone": {"driver": "driver side", "passenger": "passenger side", "all": "whole cabin"},
           "position": {"driver": "driver's", "passenger": "passenger", "rear": "rear", "all": "all"},
           "seat": {"driver": "driver's", "passenger": "passenger"},
           "action": {"open": "Opening", "close": "Closing"}},
    "zh": {"zone": {"driver": "主驾", "passenger": "副驾", "all": "全车"},
           "position": {"driver": "主驾", "passenger": "副驾", "rear": "后排", "all": "所有"},
           "seat": {"driver": "主驾", "passenger": "副驾"},
           "action": {"open": "打开", "close": "关闭"},
           "direction": {"forward": "前", "backward": "后", "left": "左", "right": "右"}},
}
MEDIA_REPLY = {
    "en": {"pause": "Pausing the music.", "resume": "Resuming playback.", "next": "Skipping to the next track.",
           "previous": "Going back to the previous track.", "volume_up": "Turning the volume up.",
           "volume_down": "Turning the volume down."},
    "zh": {"pause": "好的，已暂停。", "resume": "好的，继续播放。", "next": "好的，下一首。",
           "previous": "好的，上一首。",
           "volume_up": "好的，音量调大。", "volume_down": "好的，音量调小。"},
}


def reply(intent: str, lang: str, slots: dict[str, str]) -> str:
    """Return the spoken reply that confirms the action and repeats the slot values."""
    s, e = slots, REPLY_ENUM[lang]
    if lang == "en":
        on_off = "on" if s.get("state") == "on" else "off"
        r = {
            "navigate": lambda: f"Okay, navigating to {s['destination']}.",
            "cancel_navigation": lambda: "Okay, navigation cancelled.",
            "set_temperature": lambda: (f"Setting the {e['zone'][s['zone']]} temperature to {s['temperature']} degrees."
                                        if "zone" in s else f"Setting the temperature to {s['temperature']} degrees."),
            "climate": lambda: f"Turning the air conditioning {on_off}.",
            "window": lambda: (f"{e['action'][s['action']]} all windows." if s.get("position") == "all" else
                               f"{e['action'][s['action']]} the {e['position'][s['position']]} window."
                               if "position" in s else f"{e['action'][s['action']]} the window."),
            "play_music": lambda: f"Playing {s['query']}.",
            "media_control": lambda: MEDIA_REPLY["en"][s["action"]],
            "call": lambda: f"Calling {s['contact']}.",
            "seat_heating": lambda: (f"Turning the {e['seat'][s['seat']]} seat heating {on_off}." if "seat" in s
                                     else f"Turning the seat heating {on_off}."),
            "robot_move": lambda: (f"Moving {s['direction']} {s['distance']} meters." if "distance" in s
                                   else f"Moving {s['direction']}."),
            "robot_go_to": lambda: f"Going to {s['location']}.",
            "robot_pick": lambda: f"Picking up {s['object']}.",
            "robot_place": lambda: (f"Placing {s['object']} at {s['location']}." if "object" in s
                                    else f"Placing it at {s['location']}."),
            "stop": lambda: "Stopping now.",
        }
    else:
        on_off = "打开" if s.get("state") == "on" else "关闭"
        r = {
            "navigate": lambda: f"好的，正在导航到{s['destination']}。",
            "cancel_navigation": lambda: "好的，已取消导航。",
            "set_temperature": lambda: (f"好的，{e['zone'][s['zone']]}温度调到{s['temperature']}度。" if "zone" in s
                                        else f"好的，温度调到{s['temperature']}度。"),
            "climate": lambda: f"好的，空调已{on_off}。",
            "window": lambda: (f"好的，正在{e['action'][s['action']]}{e['position'][s['position']]}车窗。"
                               if "position" in s else f"好的，正在{e['action'][s['action']]}车窗。"),
            "play_music": lambda: f"好的，正在播放{s['query']}。",
            "media_control": lambda: MEDIA_REPLY["zh"][s["action"]],
            "call": lambda: f"好的，正在呼叫{s['contact']}。",
            "seat_heating": lambda: (f"好的，{e['seat'][s['seat']]}座椅加热已{on_off}。" if "seat" in s
                                     else f"好的，座椅加热已{on_off}。"),
            "robot_move": lambda: (f"好的，向{e['direction'][s['direction']]}移动{s['distance']}米。" if "distance" in s
                                   else f"好的，向{e['direction'][s['direction']]}移动。"),
            "robot_go_to": lambda: f"好的，正在前往{s['location']}。",
            "robot_pick": lambda: f"好的，正在拿起{s['object']}。",
            "robot_place": lambda: (f"好的，把{s['object']}放到{s['location']}。" if "object" in s
                                    else f"好的，放到{s['location']}。"),
            "stop": lambda: "已停止。",
        }
    return r[intent]()
