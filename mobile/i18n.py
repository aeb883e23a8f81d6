"""UI strings in simplified Chinese, traditional Chinese and English.

Only words live here, never rules: group names, card glyphs, rule-set and special names come
from the engine (``Group.name``, ``Card.chinese``, the rule sets' records) and are shown here
in the chosen script. The words for refusals, by their code, are ``i18n_errors``.

>>> t = Translator("en"); t("confirm")
'Confirm and record'
>>> Translator("zh_Hant")("ledger")
'帳本'
"""

from __future__ import annotations

from typing import Final

from zipai.engine.variants import find_special, region_names

from .i18n_errors import _ERRORS

LANGS: Final = ("zh_Hans", "zh_Hant", "en")
LANG_NAMES: Final = {"zh_Hans": "简体中文", "zh_Hant": "繁體中文", "en": "English"}

# key -> (simplified, traditional, english)
_S: dict[str, tuple[str, str, str]] = {
    "app_title": ("字牌记分", "字牌記分", "Zipai Scorer"),
    "start": ("开始", "開始", "Start"),
    "continue": ("继续本局", "繼續本局", "Continue session"),
    "new_session": ("新开一局", "新開一局", "New session"),
    "recent": ("最近的牌局", "最近的牌局", "Recent sessions"),
    "no_session": ("还没有牌局", "還沒有牌局", "No session yet"),
    "session_name": ("牌局名", "牌局名", "Session name"),
    "rule_set": ("规则", "規則", "Rule set"),
    "players": ("玩家", "玩家", "Players"),
    "seat": ("座位", "座位", "Seat"),
    "player_n": ("玩家{n}", "玩家{n}", "Player {n}"),
    "first_dealer": ("首庄", "首莊", "First dealer"),
    "stake": ("每分金额", "每分金額", "Stake per point"),
    "house_options": ("房规", "房規", "House options"),
    "create": ("开局", "開局", "Start session"),
    "roster": ("常客", "常客", "Roster"),
    "capture": ("拍照", "拍照", "Photo"),
    "shutter": ("拍", "拍", "Shoot"),
    "flash": ("闪光", "閃光", "Flash"),
    "no_flash": ("无闪光灯", "無閃光燈", "No flash"),
    "pick_photo": ("选照片", "選照片", "Pick a photo"),
    "use_photo": ("用这张", "用這張", "Use this photo"),
    "no_camera": ("没有相机：请选照片", "沒有相機：請選照片", "No camera here: pick a photo"),
    "frame_hint": ("把整手牌放进框里", "把整手牌放進框裡", "Fit the whole hand inside the frame"),
    "review": ("核对", "核對", "Review"),
    "manual": ("手动输入", "手動輸入", "Enter by hand"),
    "manual_entry": ("手动输入", "手動輸入", "Manual entry"),
    "hand_row": ("手牌", "手牌", "Hand"),
    "group_n": ("第{n}组", "第{n}組", "Group {n}"),
    "new_group": ("+ 新组", "+ 新組", "+ Group"),
    "delete": ("删除", "刪除", "Delete"),
    "move": ("移到…", "移到…", "Move to…"),
    "move_hint": ("点一组放入", "點一組放入", "Tap a group to move it there"),
    "flip": ("明/暗", "明/暗", "Flip"),
    "name_group": ("定牌", "定牌", "Name it"),
    "name_hint": ("这组全是背面：点一张牌定名", "這組全是背面：點一張牌定名",
                  "All backs: tap a face to name this group"),
    "open": ("明", "明", "open"),
    "concealed": ("暗", "暗", "concealed"),
    "free": ("手", "手", "hand"),
    "loose": ("不算", "不算", "left out"),
    "back_card": ("背", "背", "back"),
    "clear": ("清空", "清空", "Clear"),
    "next": ("下一步", "下一步", "Next"),
    "back": ("返回", "返回", "Back"),
    "check_ok": ("牌型完整：{n}张", "牌型完整：{n}張", "Layout complete: {n} cards"),
    "seven_yes": ("成七组", "成七組", "seven groups"),
    "seven_no": ("不成七组", "不成七組", "not seven groups"),
    "check_cards": ("{n}张牌", "{n}張牌", "{n} cards"),
    "doubts": ("存疑 {n} 处", "存疑 {n} 處", "{n} doubts"),
    "confirm_doubts": ("已核对存疑", "已核對存疑", "Doubts checked"),
    "doubts_first": ("请先核对存疑之处", "請先核對存疑之處", "Check the doubts first"),
    "tap_card": ("点牌再点键盘更正；点组名往该组加牌", "點牌再點鍵盤更正；點組名往該組加牌",
                 "Tap a card, then a key, to correct it; tap a group's label to add cards to it"),
    "how_won": ("怎么胡的", "怎麼胡的", "How it was won"),
    "winner": ("胡家", "胡家", "Winner"),
    "won_by": ("胡法", "胡法", "Won by"),
    "self_draw": ("自摸", "自摸", "Self-drawn"),
    "stock": ("翻牌", "翻牌", "From the stock"),
    "discard": ("点炮", "點炮", "Discard"),
    "dealt": ("起手", "起手", "Dealt"),
    "from_whom": ("谁放的", "誰放的", "Discarded by"),
    "winning_card": ("胡的那张", "胡的那張", "Winning card"),
    "none": ("不指定", "不指定", "none"),
    "minimum": ("起胡", "起胡", "Minimum"),
    "xing_card": ("醒牌", "醒牌", "醒 card"),
    "first_discard": ("庄家首张", "莊家首張", "Dealer's first discard"),
    "draw": ("流局", "流局", "Drawn hand"),
    "score_it": ("算分", "算分", "Score"),
    "result": ("结果", "結果", "Result"),
    "points": ("{n}分", "{n}分", "{n} pts"),
    "hand_points": ("合计 {n}", "合計 {n}", "Total {n}"),
    "score": ("得分 {n}", "得分 {n}", "Score {n}"),
    "zi_xing_fan": ("子 {zi} · 醒 {xing} · 番 {fan}", "子 {zi} · 醒 {xing} · 番 {fan}",
                    "子 {zi} · 醒 {xing} · 番 {fan}"),
    "not_winning": ("不能胡：{msg}", "不能胡：{msg}", "Not a win: {msg}"),
    "payouts": ("每家输赢", "每家輸贏", "Payout per player"),
    "confirm": ("确认记账", "確認記帳", "Confirm and record"),
    "recorded": ("已记账：第{n}手", "已記帳：第{n}手", "Recorded: hand {n}"),
    "ledger": ("账本", "帳本", "Ledger"),
    "totals": ("总分", "總分", "Totals"),
    "round_totals": ("第{n}轮（到100）", "第{n}輪（到100）", "Round {n} (to 100)"),
    "dealer": ("庄", "莊", "dealer"),
    "idle": ("数审", "數審", "sits out"),
    "history": ("记录", "記錄", "History"),
    "undo": ("撤销上一手", "撤銷上一手", "Undo last"),
    "edit": ("修改", "修改", "Edit"),
    "adjust": ("调整", "調整", "Adjust"),
    "adjust_reason": ("原因", "原因", "Reason"),
    "apply": ("记入", "記入", "Apply"),
    "delete_photo": ("删照片", "刪照片", "Delete photo"),
    "photo_deleted": ("照片已删", "照片已刪", "photo deleted"),
    "hand_no": ("第{n}手", "第{n}手", "Hand {n}"),
    "draw_entry": ("流局", "流局", "Drawn hand"),
    "adjust_entry": ("调整：{r}", "調整：{r}", "Adjustment: {r}"),
    "round_closed": ("第{n}轮结束", "第{n}輪結束", "round {n} closed"),
    "double_add": ("另一家也起手胡", "另一家也起手胡", "Another instant win"),
    "double_held": ("已记下{name}的起手胡；再输入另一家", "已記下{name}的起手胡；再輸入另一家",
                    "{name}'s instant win is kept; enter the other one"),
    "double_winners": ("胡家：{names}", "胡家：{names}", "Winners: {names}"),
    "double_entry": ("双起手胡", "雙起手胡", "Double instant win"),
    "settle": ("结算", "結算", "Settle"),
    "net": ("净输赢", "淨輸贏", "Net"),
    "transfers": ("转账", "轉帳", "Transfers"),
    "minimal": ("最少笔数", "最少筆數", "Fewest payments"),
    "pairwise": ("两两结算", "兩兩結算", "Pairwise"),
    "pays": ("{a} 付 {b}", "{a} 付 {b}", "{a} pays {b}"),
    "share_text": ("分享文字", "分享文字", "Share as text"),
    "share_image": ("分享图片", "分享圖片", "Share as image"),
    "lock": ("结算并锁定", "結算並鎖定", "Settle and lock"),
    "locked": ("已结算锁定", "已結算鎖定", "Settled and locked"),
    "reopen": ("重新打开", "重新打開", "Reopen"),
    "saved_to": ("已存：{p}", "已存：{p}", "Saved: {p}"),
    "settings": ("设置", "設定", "Settings"),
    "language": ("语言", "語言", "Language"),
    "rule_defaults": ("默认规则", "預設規則", "Default rule set"),
    "camera_res": ("相机分辨率", "相機解析度", "Camera resolution"),
    "backup": ("备份", "備份", "Back up"),
    "restore": ("恢复", "恢復", "Restore"),
    "restore_hint": ("从最新备份恢复", "從最新備份恢復", "Restore the latest backup"),
    "no_backup": ("没有备份", "沒有備份", "No backup yet"),
    "restored": ("已恢复：{p}", "已恢復：{p}", "Restored: {p}"),
    "error": ("出错：{msg}", "出錯：{msg}", "Error: {msg}"),
    "opt_self_draw": ("自摸算法", "自摸算法", "Self-draw pays"),
    "double": ("翻倍", "翻倍", "double"),
    "plus_ten": ("加十", "加十", "plus ten"),
    "opt_piao": ("飘福", "飄福", "飘福 value"),
    "opt_tianhu": ("天胡倍数", "天胡倍數", "天胡 multiplier"),
    "opt_xing": ("醒", "醒", "醒 kinds"),
    "up": ("上醒", "上醒", "上醒"),
    "same": ("本醒", "本醒", "本醒"),
    "down": ("下醒", "下醒", "下醒"),
    "opt_fan_as_zi": ("番改加子", "番改加子", "番 adds 1 子"),
    "opt_rotation": ("换庄", "換莊", "Next dealer"),
    "rot_winner": ("胡家坐庄", "胡家坐莊", "the winner"),
    "rot_next_seat": ("轮流坐庄", "輪流坐莊", "next seat"),
    "yes": ("是", "是", "yes"),
    "no": ("否", "否", "no"),
    "photo_missing": ("没有示例照片", "沒有示例照片", "No sample photo"),
    "doubt_low_confidence": ("看不准：{cards}", "看不準：{cards}", "Unsure: {cards}"),
    "doubt_colour": ("颜色不符：{cards}", "顏色不符：{cards}", "Colour does not match: {cards}"),
    "doubt_deck_limit": ("超过四张：{cards}", "超過四張：{cards}", "More than four: {cards}"),
    "doubt_unnamed_concealed": ("全是背面：请定牌", "全是背面：請定牌", "All backs: name the card"),
    "doubt_mixed_concealed": ("背面组里牌不一样：{cards}", "背面組裡牌不一樣：{cards}",
                              "Backs with different faces: {cards}"),
    "doubt_short_concealed": ("背面组少一张：{cards}", "背面組少一張：{cards}",
                              "A face-down group a card short: {cards}"),
    "doubt_stray_back": ("手牌里有背面", "手牌裡有背面", "A card back among the hand cards"),
    "doubt_stray_cards": ("放在一边，不算：{cards}", "放在一邊，不算：{cards}",
                          "Lying apart, left out: {cards}"),
    "doubt_winning_card": ("哪张是胡的那张？{cards}放在哪里会改变得分",
                           "哪張是胡的那張？{cards}放在哪裡會改變得分",
                           "Which card won? Where {cards} lies changes the score"),
    "doubt_no_cards": ("照片里没有找到牌", "照片裡沒有找到牌", "No cards found in this photo"),
    "doubt_taken_in": ("单张算进手牌（凑成七组）：{cards}", "單張算進手牌（湊成七組）：{cards}",
                       "Taken into the hand (it completes seven groups): {cards}"),
    "doubt_hidden": ("照片里看不见，按牌理补上：{cards}", "照片裡看不見，按牌理補上：{cards}",
                     "Not seen in the photo, put in by the rules to complete the hand: {cards}"),
    "doubt_taken_in_find": ("看不清，按牌理算上：{cards}", "看不清，按牌理算上：{cards}",
                            "Faint, taken in (it completes seven groups): {cards}"),
    "doubt_reread": ("按牌理改读：{cards}", "按牌理改讀：{cards}",
                     "Read as the only card that makes seven groups: {cards}"),
    "doubt_rescued": ("按胡牌改读：{cards}", "按胡牌改讀：{cards}",
                      "Read otherwise, as only so the hand wins: {cards}"),
    "doubt_bad_group": ("不成组，放回手牌：{cards}", "不成組，放回手牌：{cards}",
                        "Not a group, back to the hand: {cards}"),
    "doubt_missing_cards": ("只有{n}张：胡牌至少21张", "只有{n}張：胡牌至少21張",
                            "Only {n} cards: a win has at least 21"),
    "doubt_extra_cards": ("{n}张：比胡牌多", "{n}張：比胡牌多", "{n} cards: more than a win holds"),
    "doubt_claimed_row": ("看不出哪排是吃碰的牌，计分会变：请核对每组明/暗",
                          "看不出哪排是吃碰的牌，計分會變：請核對每組明/暗",
                          "Which row was claimed in play is unclear, and it changes the score: "
                          "check open or hand on each group"),
    "doubt_no_win": ("牌数够胡，却算不胡：可能看错、漏看了牌，或分错了组、排：请核对每组",
                     "牌數夠胡，卻算不胡：可能看錯、漏看了牌，或分錯了組、排：請核對每組",
                     "Enough cards for a win, yet scored as no win: a card misread or missed, or a group "
                     "split or in the wrong row? Check the groups"),
    "scanning": ("识别中…", "識別中…", "Reading the photo…"),
    # 同桌看: the table page (mobile/table_page.py)
    "table_page": ("同桌看", "同桌看", "Table page"),
    "scan_to_follow": ("同桌的人扫码，在自己手机上跟着看", "同桌的人掃碼，在自己手機上跟著看",
                       "Everyone at the table scans this to follow on their own phone"),
    "only_here": ("只有这台设备能打开（没有局域网）", "只有這台設備能打開（沒有區域網路）",
                  "Only this device can open it (no local network)"),
    "table_stop": ("停止", "停止", "Stop"),
    "table_close": ("关闭", "關閉", "Close"),
    "needs_extra": ("同桌看需要安装 zipai-scorer[serve]", "同桌看需要安裝 zipai-scorer[serve]",
                    "The table page needs zipai-scorer[serve]"),
}

# ---- issue 47 (the table app, table-ready): asks, undo/redo, the score explained, locks
_S.update({
    "cancel": ("取消", "取消", "Cancel"),
    "redo": ("重做", "重做", "Redo"),
    "undone": ("已撤销：{what}", "已撤銷：{what}", "Undone: {what}"),
    "redone": ("已重做：{what}", "已重做：{what}", "Redone: {what}"),
    "draw_recorded": ("已记流局：第{n}手", "已記流局：第{n}手", "Drawn hand recorded: hand {n}"),
    "adjusted": ("已记入调整：第{n}手", "已記入調整：第{n}手", "Adjustment recorded: hand {n}"),
    "ask_undo": ("撤销{what}？撤销后可以重做。", "撤銷{what}？撤銷後可以重做。",
                 "Undo {what}? You can redo it afterwards."),
    "ask_draw": ("记一手流局？", "記一手流局？", "Record a drawn hand?"),
    "ask_draw_typed": ("记一手流局？已输入的{n}张牌会清掉。", "記一手流局？已輸入的{n}張牌會清掉。",
                       "Record a drawn hand? The {n} cards typed so far are cleared."),
    "ask_clear": ("清空已输入的{n}张牌？", "清空已輸入的{n}張牌？", "Clear the {n} cards typed so far?"),
    "ask_delete_photo": ("删掉这手牌的照片？牌和分数都保留。", "刪掉這手牌的照片？牌和分數都保留。",
                         "Delete this hand's photo? The cards and the score stay."),
    "ask_restore": ("用最新备份（{p}）替换现在的账本？现在的账本会先另存一份。",
                    "用最新備份（{p}）替換現在的帳本？現在的帳本會先另存一份。",
                    "Replace the ledger with the latest backup ({p})? "
                    "The current ledger is kept as a copy first."),
    "restored_kept": ("已恢复：{p}；原账本另存在：{q}", "已恢復：{p}；原帳本另存在：{q}",
                      "Restored: {p}; the replaced ledger is kept at: {q}"),
    "ask_reopen": ("重新打开已结算的牌局？结算会作废，可以接着记账。",
                   "重新打開已結算的牌局？結算會作廢，可以接著記帳。",
                   "Reopen the settled session? The settlement is void and hands can be added again."),
    "ask_lock": ("结算并锁定？锁定后不能再记账，除非重新打开。",
                 "結算並鎖定？鎖定後不能再記帳，除非重新打開。",
                 "Settle and lock? No hand can be added until it is reopened."),
    "locked_banner": ("已结算锁定：要接着记账请点“重新打开”", "已結算鎖定：要接著記帳請點「重新打開」",
                      "Settled and locked: tap Reopen to record more hands"),
    "reopened": ("已重新打开", "已重新打開", "Reopened"),
    "continue_short": ("继续（{n}张）", "繼續（{n}張）", "Continue ({n})"),
    "continue_hand": ("继续输入这手牌（{n}张）", "繼續輸入這手牌（{n}張）", "Continue this hand ({n} cards)"),
    "backed_up": ("已备份：{p}", "已備份：{p}", "Backed up: {p}"),
    "show_alternatives": ("另外{n}种分法", "另外{n}種分法", "{n} other ways to split the hand"),
    "hide_alternatives": ("收起其他分法", "收起其他分法", "Hide the other ways"),
    "alternative_n": ("分法{n}：{points}{unit}，得分 {score}", "分法{n}：{points}{unit}，得分 {score}",
                      "Split {n}: {points} {unit}, score {score}"),
    "which_card": ("胡的那张会改变分数：请选", "胡的那張會改變分數：請選",
                   "The winning card changes the score: pick it"),
    "net_working": ("冲百福怎么算", "衝百福怎麼算", "How the 冲百福 nets work"),
    "round_working": ("第{n}轮{tag}：总分 {totals} → 取整到十 {rounded}",
                      "第{n}輪{tag}：總分 {totals} → 取整到十 {rounded}",
                      "Round {n}{tag}: totals {totals} → rounded to tens {rounded}"),
    "round_open_tag": ("（未满百，结算时按现在算）",
                       "（未滿百，結算時按現在算）", " (open, as if settled now)"),
    "round_pay": ("{name}：{r}×{k}−({others}) = {pay:+d}", "{name}：{r}×{k}−({others}) = {pay:+d}",
                  "{name}: {r}×{k}−({others}) = {pay:+d}"),
    "net_sum": ("{name} 净输赢 {parts} = {net:+d}", "{name} 淨輸贏 {parts} = {net:+d}",
                "{name} net {parts} = {net:+d}"),
    "cards_in_out": ("算进{n}张", "算進{n}張", "{n} cards counted"),
    "cards_left_out": ("不算{n}张：{cards}", "不算{n}張：{cards}", "{n} left out: {cards}"),
    "zoom_hint": ("点组名放大照片里那一组", "點組名放大照片裡那一組", "Tap a group's label to zoom to it"),
    "whole_photo": ("全图", "全圖", "Whole photo"),
    "layout_incomplete": ("牌还没摆完：{what}", "牌還沒擺完：{what}", "The layout is not complete: {what}"),
    "unknown_language": ("没有这种语言", "沒有這種語言", "No such language"),
    # the score explained, one line a step (the engine's ``steps``)
    "doubt_engine": ("计分不接受这样摆：请核对每一组", "計分不接受這樣擺：請核對每一組",
                     "The scorer refuses this layout: check each group"),
    "doubt_other": ("有一处要核对", "有一處要核對", "Something to check"),
    "ask_edit": ("改第{n}手？正在输入的{m}张牌会换成那一手的牌。",
                 "改第{n}手？正在輸入的{m}張牌會換成那一手的牌。",
                 "Edit hand {n}? The {m} cards being entered are replaced by that hand's."),
    "step_points": ("七组合计 {n}{unit}", "七組合計 {n}{unit}", "The groups make {n} {unit}"),
    "step_minimum_ok": ("起胡 {m}：{n}够了", "起胡 {m}：{n}夠了", "Minimum {m}: {n} is enough"),
    "step_minimum_short": ("起胡 {m}：{n}不够", "起胡 {m}：{n}不夠", "Minimum {m}: {n} is short"),
    "step_special": ("{name}：{n}", "{name}：{n}", "{name}: {n}"),
    "step_normal_held": ("翻牌胡：{n}", "翻牌胡：{n}", "From the stock: {n}"),
    "step_normal_double": ("自摸 ×2 → {n}", "自摸 ×2 → {n}", "Self-drawn ×2 → {n}"),
    "step_normal_double_capped": ("自摸 ×2，封顶100 → {n}", "自摸 ×2，封頂100 → {n}",
                                  "Self-drawn ×2, capped at 100 → {n}"),
    "step_normal_plus_ten": ("自摸 +10 → {n}", "自摸 +10 → {n}", "Self-drawn +10 → {n}"),
    "step_normal_discard": ("点炮 +10 → {n}", "點炮 +10 → {n}", "Discard +10 → {n}"),
    "step_bonus": ("{name}另加 {n}", "{name}另加 {n}", "{name} plus {n}"),
    "step_score": ("得分 {n}", "得分 {n}", "Score {n}"),
    "step_score_from": ("得分 {n}（按{name}）", "得分 {n}（按{name}）", "Score {n} (by {name})"),
    "step_discarder": ("{name} 放炮：{n:+d}", "{name} 放炮：{n:+d}", "{name} discarded: {n:+d}"),
    "step_idle": ("{name} 数审：{of}的一半 → {n:+d}", "{name} 數審：{of}的一半 → {n:+d}",
                  "{name} sits out: half of {of} → {n:+d}"),
    "step_zi": ("每{step}胡一子：{n}子", "每{step}胡一子：{n}子", "One 子 per {step} 胡: {n} 子"),
    "step_xing": ("醒 {n}", "醒 {n}", "醒 {n}"),
    "step_fan": ("番 ×{n}（{items}）", "番 ×{n}（{items}）", "番 ×{n} ({items})"),
    "step_fan_as_zi": ("番改加子：+{n}子（{items}）",
                       "番改加子：+{n}子（{items}）", "番 as 子: +{n} 子 ({items})"),
    "step_pay": ("{seats} 各付 {n}", "{seats} 各付 {n}", "{seats} each pay {n}"),
    "step_pay_times": ("{seats} 付 {n}×{times} = {total}", "{seats} 付 {n}×{times} = {total}",
                       "{seats} pay {n}×{times} = {total}"),
    "normal_name": ("平胡", "平胡", "normal"),
    "winning_card_mark": ("胡的那张：{card}", "胡的那張：{card}", "Winning card: {card}"),
})

# ---- the app at a real table, round 2: no work lost, every number with its reason, no freeze
_S.update({
    "ask_photo_over": ("用这张照片？正在输入的{n}张牌会换成照片里的牌。",
                       "用這張照片？正在輸入的{n}張牌會換成照片裡的牌。",
                       "Use this photo? The {n} cards being entered are replaced by the photo's."),
    "scanning_s": ("识别中… {s} 秒", "識別中… {s} 秒", "Reading the photo… {s} s"),
    "scan_cancelled": ("已取消识别，正在输入的牌没有动", "已取消識別，正在輸入的牌沒有動",
                       "Reading cancelled; the hand being entered is untouched"),
    "draft_kept": ("「{name}」里正在输入的{n}张牌留在那一局，回到那一局可继续",
                   "「{name}」裡正在輸入的{n}張牌留在那一局，回到那一局可繼續",
                   "The {n} cards being entered in “{name}” stay with that session"),
    "ask_undo": ("撤销{what}？撤销后可以重做，直到再记下一手。",
                 "撤銷{what}？撤銷後可以重做，直到再記下一手。",
                 "Undo {what}? It can be redone until the next hand is recorded."),
    "ask_over_redo": ("记下这一手后，撤销的{what}就不能重做了。记吗？",
                      "記下這一手後，撤銷的{what}就不能重做了。記嗎？",
                      "Recording this hand ends the chance to redo {what}. Record it?"),
    "ask_leave": ("退出字牌记分？所有记下的牌都已保存。", "退出字牌記分？所有記下的牌都已保存。",
                  "Leave Zipai Scorer? Everything recorded is saved."),
    "leave": ("退出", "退出", "Leave"),
    "quick_locked": ("牌局已结算锁定：先重新打开才能记账", "牌局已結算鎖定：先重新打開才能記賬",
                     "The session is settled: reopen it before recording"),
    "not_winning_short": ("{n}{unit}不到起胡{m}{unit}，不能胡", "{n}{unit}不到起胡{m}{unit}，不能胡",
                          "{n} {unit} is below the minimum of {m}: no win"),
    "not_winning_plain": ("这手牌不能胡", "這手牌不能胡", "This hand does not win"),
    "camera_bad_source": ("摄像头“{s}”：不是设备号（0、1…），也不是视频文件",
                          "攝像頭「{s}」：不是設備號（0、1…），也不是視頻文件",
                          "Camera “{s}”: neither a device number (0, 1, …) nor a video file"),
    "camera_cannot_open": ("摄像头“{s}”打不开", "攝像頭「{s}」打不開", "Camera “{s}” cannot be opened"),
    "camera_no_picture": ("摄像头“{s}”没有画面", "攝像頭「{s}」沒有畫面", "Camera “{s}” gives no picture"),
    "camera_bad_video": ("摄像头“{s}”：视频文件要以 {ext} 结尾", "攝像頭「{s}」：視頻文件要以 {ext} 結尾",
                         "Camera “{s}”: a video file ends in {ext}"),
    "camera_no_opencv": ("摄像头要装 OpenCV：pip install 'zipai-scorer[app]'",
                         "攝像頭要裝 OpenCV：pip install 'zipai-scorer[app]'",
                         "The camera needs OpenCV: pip install 'zipai-scorer[app]'"),
    "step_zi_working": ("子 = ({points}−{m})÷{step}+1，去掉小数 = {n}子",
                        "子 = ({points}−{m})÷{step}+1，去掉小數 = {n}子",
                        "子 = ({points} − {m}) ÷ {step} + 1, rounded down = {n} 子"),
    "step_below_minimum_wins": ("（不论起胡）", "（不論起胡）", " (wins below the minimum)"),
    "step_special_double": ("{name}：2×{p} = {n}", "{name}：2×{p} = {n}", "{name}: 2×{p} = {n}"),
    "step_set_aside": ("平胡 {n} 不加上去：只取最高的一项", "平胡 {n} 不加上去：只取最高的一項",
                       "The normal score {n} is set aside: only the highest counts"),
    "no_winning_card_note": ("没指定胡的那张：按引擎的默认算，可能与规则说明里的例子不同；指定后再算分",
                             "沒指定胡的那張：按引擎的預設算，可能與規則說明裡的例子不同；指定後再算分",
                             "The winning card is not given: scored the engine's default way, which may "
                             "differ from the rules' example; pick it and score again"),
    "round_note": ("湖南按轮算：这一手只记进本轮总分，有人到100福时冲百福才结算，所以这里是 +0",
                   "湖南按輪算：這一手只記進本輪總分，有人到100福時沖百福才結算，所以這裡是 +0",
                   "Hunan plays rounds: this hand only adds to the round totals; money moves when "
                   "someone reaches 100 (冲百福), so the others show +0 here"),
    "delete_what": ("先点一张牌，再点删除", "先點一張牌，再點刪除", "Tap a card first, then Delete"),
    "no_session_hint": ("还没有牌局：先在这里开一局", "還沒有牌局：先在這裡開一局",
                        "No session yet: start one here"),
    "bad_player_name": ("玩家名“{name}”：最多{n}个字，不能用表情符号",
                        "玩家名「{name}」：最多{n}個字，不能用表情符號",
                        "Player name “{name}”: at most {n} characters, no emoji"),
    "doubt_no_cards_typed": ("还没有输入牌：点下面的牌键", "還沒有輸入牌：點下面的牌鍵",
                             "No cards yet: tap the card keys below"),
    "step_discarder_less": ("{name} 放炮：{n:+d}（{score}减去点炮的奖励10）",
                            "{name} 放炮：{n:+d}（{score}減去點炮的獎勵10）",
                            "{name} discarded: {n:+d} ({score} less the +10 reward)"),
})

# the camera, quick entry by total and sharing (issue 47, items 5, 6 and 9)
_S.update({
    "gallery": ("相册", "相簿", "Gallery"),
    "camera_source": ("相机：编号（0、1…）或视频文件", "相機：編號（0、1…）或影片檔",
                      "Camera: a number (0, 1, …) or a video file"),
    "set": ("设定", "設定", "Set"),
    "camera_set": ("相机：{s}", "相機：{s}", "Camera: {s}"),
    "camera_error": ("相机不可用：{msg}", "相機不可用：{msg}", "No camera: {msg}"),
    "live_read": ("读到 {n} 张牌、{b} 张背面 · 每秒读 {r} 次", "讀到 {n} 張牌、{b} 張背面 · 每秒讀 {r} 次",
                  "{n} cards and {b} backs read · {r} reads a second"),
    "file_name": ("文件名", "檔名", "Name"),
    "file_size": ("大小", "大小", "Size"),
    "quick": ("按总数记", "按總數記", "Enter a total"),
    "quick_title": ("按总数记一手", "按總數記一手", "A hand by its total"),
    "total_label": ("胡息总数", "胡息總數", "Total"),
    "xing_count": ("醒数", "醒數", "醒 count"),
    "xing_n": ("{n} 醒", "{n} 醒", "{n} 醒"),
    "record_total": ("记账", "記帳", "Record"),
    "by_total": ("按总数", "按總數", "by total"),
    "share": ("分享", "分享", "Share"),
    "permission_refused": ("没有相机或相册权限", "沒有相機或相簿權限", "Camera or photo permission refused"),
    "shared_to": ("已存到图片：{p}", "已存到圖片：{p}", "Saved in Pictures: {p}"),
    "text_saved": ("结算文字已存为文本文件：{p}", "結算文字已存為文字檔：{p}",
                   "Settlement text saved as a text file: {p}"),
    "text_copied": ("结算文字已复制，可直接粘贴；也存为文本文件：{p}",
                    "結算文字已複製，可直接貼上；也存為文字檔：{p}",
                    "Settlement text copied, ready to paste; also saved as a text file: {p}"),
    "text_shared": ("已打开分享：结算文字", "已打開分享：結算文字", "Sharing the settlement text"),
})

# 认牌: teaching the scanner a deck from one photo of its 20 faces (issue 50)
_S.update({
    "teach": ("认牌", "認牌", "Teach the deck"),
    "teach_title": ("认牌：教它认这副牌", "認牌：教它認這副牌", "Teach the scanner this deck"),
    "teach_how": ("把这副牌的20张正面摆成两排，每张正放、不重叠，拍一张照片：上排小字一到十，下排大字壹到拾，"
                  "从左到右。一张背面可以放在旁边（可选）。",
                  "把這副牌的20張正面擺成兩排，每張正放、不重疊，拍一張照片：上排小字一到十，下排大字壹到拾，"
                  "從左到右。一張背面可以放在旁邊（可選）。",
                  "Lay the deck's 20 faces in two rows, each upright and apart, and take one photo: "
                  "small 一 to 十 on top, big 壹 to 拾 below, left to right. "
                  "One back may lie aside (optional)."),
    "small_row": ("小字", "小字", "small"),
    "big_row": ("大字", "大字", "big"),
    "back_aside": ("背面（可选）", "背面（可選）", "back (optional)"),
    "teach_photo": ("拍照或选照片", "拍照或選照片", "Take or pick the photo"),
    "teaching": ("正在认牌…", "正在認牌…", "Learning the deck…"),
    "teach_read": ("读到的20张：橙色的和原来读的不一样，点一张改",
                   "讀到的20張：橙色的和原來讀的不一樣，點一張改",
                   "The 20 cards as read: orange ones were read otherwise; tap one to fix it"),
    "teach_pick": ("第{n}张是哪张牌？", "第{n}張是哪張牌？", "Which card is number {n}?"),
    "teach_none": ("还没有认牌照片", "還沒有認牌照片", "No teaching photo yet"),
    "teach_upside_down": ("照片是倒着拍的，已经转正", "照片是倒著拍的，已經轉正",
                          "The photo was upside down; turned"),
    "teach_time": ("认牌用了 {s} 秒", "認牌用了 {s} 秒", "Learned in {s} s"),
    "teach_confusable": ("容易混：{pairs}", "容易混：{pairs}", "Still confusable: {pairs}"),
    "teach_untaken": ("没有一张是{cards}：点错了吗？", "沒有一張是{cards}：點錯了嗎？",
                      "No face is taken as {cards}: a wrong tap?"),
    "deck_name": ("牌组名", "牌組名", "Deck name"),
    "deck_default_name": ("我们的牌", "我們的牌", "Our deck"),
    "save_deck": ("保存并使用", "保存並使用", "Save and use"),
    "deck_saved": ("牌组“{name}”已保存，正在使用", "牌組「{name}」已保存，正在使用",
                   "Deck “{name}” saved and in use"),
    "teach_refused": ("这张照片认不了牌：{why}", "這張照片認不了牌：{why}",
                      "Cannot learn from this photo: {why}"),
    "deck_error": ("牌组出错：{why}", "牌組出錯：{why}", "Deck error: {why}"),
    "deck_in_use": ("牌组：{name}", "牌組：{name}", "Deck: {name}"),
    "no_deck": ("没用牌组", "沒用牌組", "no deck"),
    "deck_unreadable": ("牌组“{name}”读不了：{why}", "牌組「{name}」讀不了：{why}",
                        "Deck “{name}” unreadable: {why}"),
    "decks": ("牌组（认牌）", "牌組（認牌）", "Decks"),
    "deck_none": ("不用", "不用", "None"),
    "deck_chosen": ("读照片用：{name}", "讀照片用：{name}", "Photos are read with: {name}"),
    "teach_offer": ("先认牌？摆好这副牌的20张拍一张，以后每张都读得更准。",
                    "先認牌？擺好這副牌的20張拍一張，以後每張都讀得更準。",
                    "Teach the scanner your deck first? "
                    "One photo of its 20 faces and every card reads better."),
    "later": ("以后再说", "以後再說", "Later"),
    "teach_found": ("找到{n}张正面，要20张、两排各十张", "找到{n}張正面，要20張、兩排各十張",
                    "found {n} faces, need 20 in two rows of ten"),
    "teach_found_rows": ("找到{n}张正面，排成{rows}张，要两排各十张",
                         "找到{n}張正面，排成{rows}張，要兩排各十張",
                         "found {n} faces in rows of {rows}, need two rows of ten"),
    "teach_misread": ("第{row}排第{col}张读成{read}，应该是{want}：顺序对吗？",
                      "第{row}排第{col}張讀成{read}，應該是{want}：順序對嗎？",
                      "row {row}, card {col} reads as {read}, expected {want}: is the order right?"),
    "teach_misreads": ("{n}张牌和位置对不上（第{row}排第{col}张读成{read}，应该是{want}）："
                       "顺序对吗？照片清楚吗？",
                       "{n}張牌和位置對不上（第{row}排第{col}張讀成{read}，應該是{want}）："
                       "順序對嗎？照片清楚嗎？",
                       "{n} cards disagree with their places (row {row}, card {col} reads as {read}, "
                       "expected {want}): is the order right, is the photo sharp?"),
    "teach_twice": ("第{row}排第{col}张读成{read}，和第{row2}排第{col2}张一样："
                    "有一张放了两次吗？（这里应该是{want}）",
                    "第{row}排第{col}張讀成{read}，和第{row2}排第{col2}張一樣："
                    "有一張放了兩次嗎？（這裡應該是{want}）",
                    "row {row}, card {col} reads as {read}, as row {row2}, card {col2} does: "
                    "is a card laid twice? ({want} belongs there)"),
    "teach_alike": ("第{row}排第{col}张和第{row2}排第{col2}张像是同一张牌：有一张放了两次吗？"
                    "（这两处应该是{want}和{want2}）",
                    "第{row}排第{col}張和第{row2}排第{col2}張像是同一張牌：有一張放了兩次嗎？"
                    "（這兩處應該是{want}和{want2}）",
                    "row {row}, card {col} and row {row2}, card {col2} look like one card: is a card "
                    "laid twice? ({want} and {want2} belong there)"),
    "teach_swapped": ("两排放反了：小字一到十放上排，大字壹到拾放下排",
                      "兩排放反了：小字一到十放上排，大字壹到拾放下排",
                      "The rows are swapped: small 一…十 on top, big 壹…拾 below"),
    "teach_empty": ("第{row}排第{col}个位置没有牌：二十张都摆上，上排小字一到十，下排大字壹到拾",
                    "第{row}排第{col}個位置沒有牌：二十張都擺上，上排小字一到十，下排大字壹到拾",
                    "row {row}, place {col}: no card there (lay all 20: small 一…十 on top, "
                    "big 壹…拾 below)"),
    "teach_crossed": ("第{row}排第{col}张和第{row2}排第{col2}张像是互相放错了位置（应该是{want}和{want2}）",
                      "第{row}排第{col}張和第{row2}排第{col2}張像是互相放錯了位置（應該是{want}和{want2}）",
                      "row {row}, place {col} and row {row2}, place {col2} read as each other's cards "
                      "({want} and {want2} belong there): swap them back"),
    "teach_disagreed": ("{n}张和位置对不上，已按位置认（看一眼，点一下可改）：{cards}",
                        "{n}張和位置對不上，已按位置認（看一眼，點一下可改）：{cards}",
                        "{n} disagreed with their places, learnt by place (tap one to change it): {cards}"),
    "teach_progress": ("正在认牌… {pct}%", "正在認牌… {pct}%", "Learning the deck… {pct}%"),
    "teach_blurred": ("照片太模糊（清晰度 {s}，要 {need}）：拿稳手机再拍一张",
                      "照片太模糊（清晰度 {s}，要 {need}）：拿穩手機再拍一張",
                      "The photo is too blurred (sharpness {s}, need {need}): hold still, retake it"),
    "deck_learned": ("牌组记下了{n}张改过的牌", "牌組記下了{n}張改過的牌",
                     "The deck learned {n} corrected cards"),
})

# the review's walk through a photo's doubts, one card at a time, most money first
_S.update({
    "walk_step": ("存疑 {i}/{n}：{what}", "存疑 {i}/{n}：{what}", "Doubt {i} of {n}: {what}"),
    "walk_change": ("若是{card}，差 {d} 分", "若是{card}，差 {d} 分", "As {card}, {d} points differ"),
    "walk_same": ("是哪张得分都一样", "是哪張得分都一樣", "Either way the score is the same"),
    "walk_unknown": ("改对了才能算分", "改對了才能算分", "The hand scores once this is right"),
    "walk_now_none": ("还算不了分", "還算不了分", "not scorable yet"),
    "walk_lose": ("不成胡", "不成胡", "no win"),
    "walk_other": ("别的牌…", "別的牌…", "Other…"),
    "walk_not_card": ("不是牌", "不是牌", "Not a card"),
    "walk_seen": ("看过了", "看過了", "Looked at it"),
    "walk_pick": ("在下面的牌键上点它是哪张", "在下面的牌鍵上點它是哪張",
                  "Tap the right card on the keys below"),
    "doubts_where": ("还有 {n} 处存疑没核对，先看这处：{what}", "還有 {n} 處存疑沒核對，先看這處：{what}",
                     "{n} doubts not checked yet; first this one: {what}"),
})

# a table's convention, asked once an evening: which row of a photo holds the claimed groups
_S.update({
    "claimed_ask": ("这桌吃、碰的牌摆在哪排？（本晚只问这一次）",
                    "這桌吃、碰的牌擺在哪排？（本晚只問這一次）",
                    "Which row holds this table's claimed groups? (asked once this evening)"),
    "claimed_top": ("上排是吃碰的", "上排是吃碰的", "Top row is claimed"),
    "claimed_bottom": ("下排是吃碰的", "下排是吃碰的", "Bottom row is claimed"),
    # rows laid side by side, one long row split in two
    "claimed_left": ("左边是吃碰的", "左邊是吃碰的", "Left row is claimed"),
    "claimed_right": ("右边是吃碰的", "右邊是吃碰的", "Right row is claimed"),
    "claimed_kept": ("记下了：本晚{row}（设置里可改）", "記下了：本晚{row}（設置裡可改）",
                     "Noted for this evening: {row} (change it in Settings)"),
    "claimed_rule": ("本晚吃碰的牌在哪排", "本晚吃碰的牌在哪排", "This evening's claimed row"),
    "claimed_ask_again": ("照片上再问", "照片上再問", "Ask at a photo"),
})

# 胡多少处罚多少 (seed 001); rules version 3's refusals of a dealt hand are in i18n_errors
_S.update({
    "penalty": ("不算胡：胡多少罚多少", "不算胡：胡多少罰多少", "No win: pays what it would score (penalty)"),
    "penalized": ("已记入处罚：第{n}手", "已記入處罰：第{n}手", "Penalty recorded: hand {n}"),
})

_TRAD = str.maketrans("贰叁陆顺边绞扫开龙将对乌红飘", "貳參陸順邊絞掃開龍將對烏紅飄")


class Translator:
    """Looks up a UI string in one language; unknown keys come back as the key (visible, not fatal)."""

    def __init__(self, lang: str = "zh_Hans") -> None:
        self.lang = lang if lang in LANGS else "zh_Hans"

    @property
    def col(self) -> int:
        return LANGS.index(self.lang)

    @property
    def traditional(self) -> bool:
        return self.lang == "zh_Hant"

    def __call__(self, key: str, **kw: object) -> str:
        row = _S.get(key) or region_names(key)  # a rule set's name is the engine's record
        text = row[self.col] if row else key
        return text.format(**kw) if kw else text

    def has(self, key: str) -> bool:
        """Whether the app has words for ``key`` (a refusal of a newer learner may not)."""
        return key in _S

    def error(self, code: str) -> str:
        """A refusal worded by its code; an unknown code gets the ledger's general line."""
        row = _ERRORS.get(code) or _ERRORS["ledger"]
        return row[self.col]

    def special(self, sid: str, fallback: str = "") -> str:
        special = find_special(sid)  # the engine's record names it in the three scripts
        return special.names[self.col] if special else self.script(fallback or sid)

    def script(self, text: str) -> str:
        """Engine text (simplified) in the chosen script."""
        return text.translate(_TRAD) if self.traditional else text


def keys() -> set[str]:
    return set(_S)


def error_codes() -> set[str]:
    return set(_ERRORS)

