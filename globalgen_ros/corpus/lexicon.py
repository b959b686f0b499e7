"""Slot-value generators: thousands of synthetic places, contacts, music queries and objects per language.

Each generator composes values from small word lists and random syllables, so the model sees far more values
than it can memorise and has to copy spans from the transcript instead.
"""

from __future__ import annotations

import random

# ---------------------------------------------------------------- shared pieces (zh)
ZH_NAME_CHARS = ("金华新东西南北中阳光明春秋德福安平和龙凤山河湖海天星月云林花园泰康盛兴达嘉乐宝丰恒美锦绣翠青蓝红"
                 "紫玉晨曦雅静怡欣悦佳豪伟强磊洋勇军杰涛超鹏辉波宁远志文武思睿博瑞祥瀚宇航鑫源浩泽景瑶琪婷娜丽"
                 "芳燕霞秀英梅兰竹菊松柏桐枫杨柳桃李杏梨樱荷莲君子诚信义礼智仁孝忠恩惠清白朗逸飞翔鸿鹤燕雁")
ZH_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁"
               "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武")
ZH_CITIES = ("北京 上海 广州 深圳 杭州 南京 成都 武汉 西安 重庆 天津 苏州 长沙 郑州 青岛 厦门 大连 宁波 昆明 合肥 "
             "海淀 朝阳 西单 中关村 望京 徐家汇 陆家嘴 南山 福田 天河 武昌 西湖 浦东 静安 东城 西城 丰台 通州 昌平 "
             "顺义 大兴 五道口 三里屯 国贸 王府井 前门 虹桥 张江 滨江 江北 龙华 宝安 番禺 白云 雁塔 高新区").split()
ZH_PLACE_TYPES = ("大悦城 购物中心 广场 公园 医院 人民医院 儿童医院 火车站 高铁站 南站 北站 地铁站 机场 "
                  "国际机场 大厦 中心 小区 花园 酒店 大酒店 大学 中学 小学 幼儿园 图书馆 博物馆 体育馆 "
                  "体育中心 停车场 加油站 充电站 商场 "
                  "超市 万达广场 银行 派出所 路口 写字楼 科技园 产业园 步行街 美食街 菜市场 电影院 游乐园 动物园 "
                  "植物园 湿地公园 汽车站 码头 服务区 4S店 咖啡馆 书店 宾馆 公寓 别墅区 市政府 区政府 法院").split()
ZH_ROOMS = ("厨房 客厅 卧室 主卧 次卧 书房 卫生间 洗手间 阳台 餐厅 门口 大门口 前台 会议室 充电桩 仓库 走廊 电梯口 "
            "楼梯口 车库 储藏室 洗衣房 实验室 办公室 休息室 茶水间 大厅 前厅 后院 花园 儿童房 衣帽间 玄关 机房 "
            "货架区 装配区 收货区 发货区 打印室 档案室 病房 护士站 药房 手术室 餐桌旁 沙发旁 窗边 床边").split()
ZH_FLOORS = "一楼 二楼 三楼 四楼 五楼 六楼 负一楼 地下室 楼上 楼下 东区 西区 南区 北区 A区 B区 C区 D区".split()
ZH_COLORS = "红色 蓝色 绿色 黄色 黑色 白色 灰色 紫色 橙色 粉色 棕色 银色 金色 透明 红 蓝 绿 黄 黑 白".split()
ZH_ADJS = "大 小 圆 方 旧 新 空 满 长 短 软 硬 干净的 脏的 破的 重的 轻的".split()
ZH_OBJECTS = ("杯子 盒子 瓶子 水杯 遥控器 手机 钥匙 书 笔 盘子 碗 勺子 苹果 香蕉 橙子 积木 毛巾 玩具 包 箱子 "
              "螺丝刀 扳手 锤子 零件 快递 药盒 眼镜 耳机 充电器 纸巾 水瓶 保温杯 茶杯 饭盒 文件夹 笔记本 "
              "平板 鼠标 键盘 U盘 "
              "电池 胶带 剪刀 衣服 袜子 鞋子 帽子 雨伞 钱包 托盘 篮子 垃圾袋 抹布 牙刷 药瓶 花盆 灯泡 插线板 "
              "工具箱 螺丝 轴承 齿轮 传感器 电路板 试管 烧杯 餐巾 咖啡 可乐 矿泉水 牛奶 面包 鸡蛋 西红柿").split()
ZH_DETS = ["", "", "", "那个", "这个", "那只", "这瓶", "那本", "桌上的", "地上的", "我的", "左边的", "右边的"]
ZH_RELATIONS = "妈妈 爸爸 老婆 老公 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶 外婆 外公 儿子 女儿 老板 房东 同事 班主任".split()
ZH_TITLES = "老师 经理 总 医生 阿姨 叔叔 师傅 主任 律师 教授 哥 姐 工 处长 队长 老板".split()
ZH_GENRES = ("爵士 摇滚 流行音乐 古典音乐 民谣 说唱 轻音乐 电子乐 儿歌 乡村音乐 蓝调 重金属 钢琴曲 古风歌曲 "
             "粤语歌 老歌 抖音热歌 纯音乐 交响乐 京剧 相声 评书 英文歌 日文歌 韩语歌 二次元歌曲 睡前音乐").split()
ZH_SONG_CHARS = ("晴天稻香七里香夜曲告白气球青花瓷东风破彩虹简单爱小幸运后来十年遇见海阔天空"
                 "光年之外平凡之路起风了漂洋过海")
ZH_BANDS = "乐队 组合 男团 女团 合唱团".split()

# ---------------------------------------------------------------- shared pieces (en)
EN_FIRST = ("James Mary John Patricia Robert Jennifer Michael Linda David Elizabeth William Barbara Richard Susan "
            "Joseph Jessica Thomas Sarah Charles Karen Daniel Nancy Matthew Lisa Anthony Betty Mark Sandra Donald "
            "Ashley Steven Kimberly Paul Emily Andrew Donna Joshua Michelle Kevin Carol Brian Amanda George Melissa "
            "Timothy Deborah Ronald Stephanie Jason Rebecca Edward Laura Jeffrey Helen Ryan Sharon Jacob Cynthia "
            "Gary Kathleen Nicholas Amy Eric Angela Jonathan Anna Larry Brenda Justin Pamela Scott Emma Brandon "
            "Nicole Benjamin Samantha Samuel Katherine Frank Christine Gregory Debra Raymond Rachel Alexander "
            "Carolyn Patrick Janet Jack Maria Dennis Olivia Jerry Heather Tyler Diane Aaron Julie Jose Joyce Adam "
            "Victoria Nathan Kelly Henry Christina Zachary Lauren Douglas Joan Peter Evelyn Kyle Judith Noah Megan "
            "Ethan Andrea Jeremy Cheryl Walter Hannah Christian Jacqueline Keith Martha Roger Gloria Terry Teresa "
            "Wei Ming Li Hiroshi Yuki Priya Raj Ahmed Fatima Carlos Sofia Luca Chiara Omar Leila Ivan Olga Kenji "
            "Mei Arjun Ana Diego Ingrid Lars Nadia Tariq Zoe Felix Hugo Elena Marco Ines").split()
EN_LAST = ("Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez "
           "Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark "
           "Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams "
           "Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz "
           "Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson "
           "Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood James Bennett Gray "
           "Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Chen Wang Zhang Liu "
           "Tanaka Sato Kowalski Novak Schmidt Muller Rossi Dubois Silva Larsen Ivanova Okafor Mensah").split()
EN_PLACE_STEMS = ("Maple Oak Pine Cedar Elm Birch Willow Riverside Lakeside Hillcrest Sunset Sunrise Golden Gate "
                  "Lincoln Washington Jefferson Franklin Madison Harbor Bay Ocean Park Union Central Market "
                  "Highland Meadow Spring Summit Valley Brook Fairview Greenwood Westfield Eastgate Northgate "
                  "Southport Kingston Queens Victoria Liberty Heritage Pioneer Silver Crystal Diamond Eagle "
                  "Falcon Cherry Rose Ivy Stone Bridge Mill Church Castle Forest Prospect Grand Royal Mission "
                  "Chinatown Broadway Hudson Potomac Sierra Aspen Redwood Sequoia Canyon Mesa Coral Harbour").split()
EN_PLACE_TYPES = ("Park;Street;Avenue;Mall;Station;Airport;Hospital;Library;Museum;Plaza;Center;High School;"
                  "Stadium;Hotel;Bridge;Market;Beach;Square;Road;Boulevard;Drive;Lane;Terrace;Gardens;Zoo;"
                  "Shopping Center;Medical Center;Train Station;Bus Terminal;University;College;Elementary School;"
                  "Community Center;Public Library;Art Gallery;Theater;Cinema;Aquarium;Marina;Pier;Campus;"
                  "Business Park;Tower;Plaza Hotel;Convention Center;Parking Garage;Gas Station;Charging Station;"
                  "Supermarket;Cafe;Bakery;Diner;Pharmacy;Clinic;Fire Station;Post Office;City Hall;"
                  "Courthouse").split(";")
EN_ROOMS = ("kitchen;living room;bedroom;master bedroom;guest room;bathroom;hallway;garage;office;study;"
            "dining room;laundry room;front door;back door;balcony;porch;basement;attic;lobby;reception;"
            "meeting room;conference room;charging dock;charging station;storage room;warehouse;loading bay;"
            "workshop;lab;break room;elevator;staircase;nursery;pantry;patio;garden;hall;"
            "assembly line;packing station;shipping area;receiving area;server room;mail room;copy room;"
            "front desk;waiting area;pharmacy;nurses station;ward;cafeteria;canteen;playroom;closet").split(";")
EN_FLOORS = ("first floor;second floor;third floor;upstairs;downstairs;north wing;south wing;east wing;west wing;"
             "ground floor;top floor;zone A;zone B;zone C;building 2;block C").split(";")
EN_COLORS = ("red blue green yellow black white grey gray purple orange pink brown silver golden clear dark "
             "light").split()
EN_ADJS = "big small large tiny round square old new empty full long short soft heavy light plastic metal glass".split()
EN_OBJECTS = ("box;cup;bottle;mug;remote;phone;keys;book;pen;plate;bowl;spoon;apple;banana;orange;block;towel;toy;"
              "bag;crate;screwdriver;wrench;hammer;part;package;pill box;glasses;headphones;charger;tissues;"
              "water bottle;thermos;teacup;lunch box;folder;notebook;tablet;mouse;keyboard;USB stick;battery;"
              "tape;scissors;shirt;socks;shoes;hat;umbrella;wallet;tray;basket;trash bag;rag;toothbrush;"
              "medicine bottle;flower pot;light bulb;power strip;toolbox;screw;bearing;gear;sensor;circuit board;"
              "test tube;beaker;napkin;coffee;soda can;milk;bread;eggs;tomato;TV remote;laptop;stapler;"
              "coffee mug;jar;can;cable;drill;helmet;glove;ball;teddy bear;vase;candle;knife;fork").split(";")
EN_DETS = ["the", "the", "the", "a", "that", "this", "my", "the little", "one"]
EN_RELATIONS = ("Mom;Dad;my wife;my husband;Grandma;Grandpa;my boss;my sister;my brother;the office;"
                "Uncle Bob;Aunt Jane;the doctor;my landlord;the kids;my son;my daughter;home").split(";")
EN_GENRES = ("jazz;rock;pop;classical music;folk;hip hop;rap;country;blues;heavy metal;lo-fi;lo-fi hip hop;"
             "electronic;EDM;reggae;soul;R&B;funk;disco;k-pop;indie rock;punk;piano music;ambient;"
             "gospel;techno;house music;bluegrass;opera;movie soundtracks;kids songs;christmas songs;"
             "eighties hits;nineties pop;smooth jazz;acoustic covers;workout music;sleep music").split(";")
EN_SONG_WORDS = ("Midnight River Golden Hour Blue Moon Summer Rain Highway Heart Fire Dreams Lights City Ocean "
                 "Thunder Shadow Paradise Forever Yesterday Tomorrow Stars Wild Silent Electric Broken Sweet "
                 "Lonely Dancing Falling Running Crazy Little Paper Glass Velvet Neon Desert Winter Echo Ghost "
                 "Cherry Bomb Sugar Honey Wonder Wall Rhapsody Bohemian Diamond Sky Road Home Train Memory "
                 "Storm Angel Devil Rebel Gypsy Magic Mirror Radio Satellite Galaxy Rocket Kingdom Story").split()
EN_BAND_PREFIX = ["the", "", "", "DJ", "MC", "Lil", "Big", ""]
EN_BAND_NOUNS = ("Wolves Foxes Kings Strangers Lumineers Monkeys Killers Beatles Stones Doors Drifters Rockets "
                 "Pilots Dragons Lions Shadows Echoes Vandals Comets Ravens Tigers Sparks").split()

CONSONANTS = "b c d f g h j k l m n p r s t v w z br cr dr fl gr kl pr st tr ch sh th".split()
VOWELS = "a e i o u ai ea ee oo ou ia io".split()
ENDINGS = "n r s l x k th nd rt sh ck m ll ng ton ville son ford wood dale mont ia ora ex".split()


def syllable_word(rng: random.Random, min_syl: int = 2, max_syl: int = 3) -> str:
    """Return a pronounceable made-up word such as 'Brimwood' or 'Tarvex'."""
    parts = [rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(rng.randint(min_syl - 1, max_syl - 1))]
    word = "".join(parts) + rng.choice(ENDINGS)
    return word.capitalize()


def code_string(rng: random.Random) -> str:
    """Return a model-number-like string such as 'XR-7' or 'B12'."""
    letters = "".join(rng.choice("ABCDEFGHJKLMNPRSTVWXZ") for _ in range(rng.randint(1, 3)))
    return letters + rng.choice(["-", "", " "]) + str(rng.randint(1, 999))


def zh_word(rng: random.Random, lo: int = 1, hi: int = 2) -> str:
    return "".join(rng.choice(ZH_NAME_CHARS) for _ in range(rng.randint(lo, hi)))


def zh_person(rng: random.Random) -> str:
    return rng.choice(ZH_SURNAMES) + zh_word(rng, 1, 2)


def en_person(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return rng.choice(EN_FIRST)
    if r < 0.75:
        return f"{rng.choice(EN_FIRST)} {rng.choice(EN_LAST)}"
    if r < 0.87:
        return syllable_word(rng) + ("" if rng.random() < 0.5 else " " + syllable_word(rng))
    return f"{rng.choice(['Dr.', 'Mr.', 'Mrs.', 'Ms.', 'Professor', 'Coach', 'Officer'])} {rng.choice(EN_LAST)}"


# ---------------------------------------------------------------- generators: one value per call
def zh_destination(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.30:
        return rng.choice(ZH_CITIES) + zh_word(rng) + rng.choice(ZH_PLACE_TYPES)
    if r < 0.55:
        return zh_word(rng, 2, 3) + rng.choice(ZH_PLACE_TYPES)
    if r < 0.70:
        return rng.choice(ZH_CITIES) + rng.choice(ZH_PLACE_TYPES)
    if r < 0.82:
        return f"{zh_word(rng, 2, 2)}路{rng.randint(1, 999)}号"
    if r < 0.90:
        return f"{zh_word(rng, 2, 2)}路和{zh_word(rng, 2, 2)}路交叉口"
    if r < 0.95:
        return f"{zh_person(rng)}家"
    return en_destination(rng)  # code-switching: English names inside Chinese sentences


def en_destination(rng: random.Random) -> str:
    r = rng.random()
    stem = rng.choice(EN_PLACE_STEMS) if rng.random() < 0.6 else syllable_word(rng)
    if r < 0.45:
        value = f"{stem} {rng.choice(EN_PLACE_TYPES)}"
    elif r < 0.60:
        value = f"the {stem} {rng.choice(EN_PLACE_TYPES)}"
    elif r < 0.72:
        value = f"{rng.randint(1, 9999)} {stem} {rng.choice(['Street', 'Avenue', 'Road', 'Drive', 'Lane', 'Way'])}"
    elif r < 0.80:
        value = f"{rng.choice(EN_LAST)}'s {rng.choice(['house', 'place', 'office', 'shop'])}"
    elif r < 0.88:
        value = f"the {rng.choice(['nearest', 'closest', 'big', 'new', 'old'])} {rng.choice(EN_PLACE_TYPES).lower()}"
    elif r < 0.94:
        value = f"{stem} and {rng.choice(EN_PLACE_STEMS)}"
    else:
        value = f"{stem} {rng.choice(EN_PLACE_TYPES)} {code_string(rng)}"
    return value


def zh_location(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return rng.choice(ZH_ROOMS)
    if r < 0.55:
        return rng.choice(ZH_FLOORS) + rng.choice(ZH_ROOMS)
    if r < 0.65:
        return f"{rng.randint(1, 60)}号{rng.choice(['桌', '房间', '工位', '货架', '充电桩', '床', '门'])}"
    if r < 0.75:
        return f"{zh_person(rng)}{rng.choice(['的办公室', '的房间', '的工位', '那里', '的桌子'])}"
    if r < 0.85:
        return f"{rng.choice(ZH_FLOORS)}{rng.randint(101, 999)}{rng.choice(['房间', '室', ''])}"
    if r < 0.95:
        return zh_word(rng, 2, 2) + rng.choice(["会议室", "实验室", "办公室", "仓库", "厅", "区"])
    return en_location(rng)


def en_location(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return f"the {rng.choice(EN_ROOMS)}"
    if r < 0.50:
        return f"the {rng.choice(EN_FLOORS)} {rng.choice(EN_ROOMS)}"
    if r < 0.62:
        place = rng.choice(["table", "room", "desk", "shelf", "bay", "gate", "station", "bed"])
        return f"{place} {rng.randint(1, 999)}"
    if r < 0.74:
        return f"{rng.choice(EN_FIRST)}'s {rng.choice(['office', 'room', 'desk', 'bedroom'])}"
    if r < 0.84:
        return f"the {syllable_word(rng)} {rng.choice(['room', 'lab', 'hall', 'wing', 'suite'])}"
    if r < 0.92:
        return f"{rng.choice(EN_ROOMS)} {code_string(rng)}"
    return f"my {rng.choice(EN_ROOMS)}"


def zh_object(rng: random.Random) -> str:
    r = rng.random()
    noun = rng.choice(ZH_OBJECTS)
    if r < 0.30:
        return rng.choice(ZH_DETS) + rng.choice(ZH_COLORS) + rng.choice(["的", ""]) + noun
    if r < 0.50:
        return rng.choice(ZH_DETS) + rng.choice(ZH_ADJS) + noun
    if r < 0.70:
        return rng.choice(ZH_DETS) + noun
    if r < 0.82:
        return f"{zh_person(rng)}的{noun}"
    if r < 0.92:
        return f"{rng.choice(ZH_COLORS)}{rng.choice(ZH_ADJS)}{noun}"
    return code_string(rng) + rng.choice(["零件", "模块", "", "盒子"])


def en_object(rng: random.Random) -> str:
    r = rng.random()
    noun = rng.choice(EN_OBJECTS)
    det = rng.choice(EN_DETS)
    if r < 0.35:
        return f"{det} {rng.choice(EN_COLORS)} {noun}"
    if r < 0.55:
        return f"{det} {rng.choice(EN_ADJS)} {noun}"
    if r < 0.70:
        return f"{det} {rng.choice(EN_ADJS)} {rng.choice(EN_COLORS)} {noun}"
    if r < 0.80:
        return f"{det} {noun}"
    if r < 0.88:
        return f"{rng.choice(EN_FIRST)}'s {noun}"
    return f"the {code_string(rng)} {rng.choice(['module', 'part', 'unit', 'box', 'kit', noun])}"


def zh_contact(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.55:
        return zh_person(rng)
    if r < 0.75:
        return rng.choice(ZH_SURNAMES) + rng.choice(ZH_TITLES)
    if r < 0.82:
        return rng.choice(["小", "老", "阿"]) + rng.choice(ZH_SURNAMES)
    if r < 0.90:
        return rng.choice(ZH_RELATIONS) if rng.random() < 0.3 else zh_person(rng) + rng.choice(ZH_TITLES)
    return en_person(rng)


def en_contact(rng: random.Random) -> str:
    if rng.random() < 0.06:
        return rng.choice(EN_RELATIONS)
    return en_person(rng)


def zh_query(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.25:
        return "".join(rng.sample(ZH_SONG_CHARS, rng.randint(2, 4)))
    if r < 0.45:
        return zh_person(rng)
    if r < 0.55:
        return rng.choice(ZH_GENRES)
    if r < 0.65:
        return zh_word(rng, 2, 3) + rng.choice(ZH_BANDS)
    if r < 0.78:
        return zh_word(rng, 2, 4)
    if r < 0.88:
        return f"{zh_person(rng)}的{''.join(rng.sample(ZH_SONG_CHARS, rng.randint(2, 3)))}"
    return en_query(rng)


def en_query(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.30:
        return " ".join(rng.sample(EN_SONG_WORDS, rng.randint(1, 3)))
    if r < 0.50:
        return en_person(rng)
    if r < 0.60:
        return rng.choice(EN_GENRES)
    if r < 0.72:
        return " ".join(w for w in [rng.choice(EN_BAND_PREFIX), rng.choice(EN_BAND_NOUNS)] if w)
    if r < 0.82:
        return f"{syllable_word(rng)} {rng.choice(EN_SONG_WORDS)}"
    if r < 0.90:
        return f"{' '.join(rng.sample(EN_SONG_WORDS, 2))} by {en_person(rng)}"
    return syllable_word(rng, 2, 4)


GENERATORS = {
    ("zh", "destination"): zh_destination, ("en", "destination"): en_destination,
    ("zh", "location"): zh_location, ("en", "location"): en_location,
    ("zh", "object"): zh_object, ("en", "object"): en_object,
    ("zh", "contact"): zh_contact, ("en", "contact"): en_contact,
    ("zh", "query"): zh_query, ("en", "query"): en_query,
}


def recase(rng: random.Random, value: str) -> str:
    """Vary the casing of an English value the way ASR output does (lower, as written, title, upper)."""
    r = rng.random()
    if r < 0.35:
        return value.lower()
    if r < 0.45:
        return value.title()
    if r < 0.48:
        return value.upper()
    return value


def value_pool(rng: random.Random, lang: str, kind: str, n: int) -> list[str]:
    """Return up to n distinct values of one slot kind (stripped, single-spaced)."""
    gen, seen = GENERATORS[(lang, kind)], {}
    for _ in range(n * 20):
        v = " ".join(gen(rng).split())
        seen.setdefault(v.casefold(), v)
        if len(seen) >= n:
            break
    return list(seen.values())
