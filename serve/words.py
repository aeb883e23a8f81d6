"""The page's own words in the app's three languages (the working itself is the app's:
``zipai.mobile.explain`` over the engine's ``steps``)."""

from __future__ import annotations

from zipai.mobile.i18n import LANGS

# key -> (simplified, traditional, english)
_W: dict[str, tuple[str, str, str]] = {
    "page_title": ("同桌看", "同桌看", "At the table"),
    "live": ("实时", "即時", "live"),
    "offline": ("连接中断，正在重连…", "連線中斷，正在重連…", "Connection lost, reconnecting…"),
    "no_hands": ("还没有记账", "還沒有記帳", "No hands recorded yet"),
    "hands": ("每一手", "每一手", "Every hand"),
    "working": ("怎么算的", "怎麼算的", "How it was worked out"),
    "photo": ("照片（识别结果）", "照片（辨識結果）", "The photo as read"),
    "settled": ("已结算", "已結算", "Settled"),
    "if_settled": ("现在结算的话", "現在結算的話", "If settled now"),
    "nothing_to_pay": ("没有人要付钱", "沒有人要付錢", "Nobody pays anybody"),
    "stake": ("每分 {s}", "每分 {s}", "{s} per point"),
    "money": ("金额", "金額", "Money"),
    "propose": ("提议一手", "提議一手", "Propose a hand"),
    "propose_hint": ("提议要主持人确认后才记账", "提議要主持人確認後才記帳",
                     "A proposal is recorded only when the host confirms it"),
    "by_total": ("按总数", "按總數", "By total"),
    "by_photo": ("拍照", "拍照", "By photo"),
    "take_photo": ("拍这手牌", "拍這手牌", "Photograph the hand"),
    "send": ("提交", "提交", "Send"),
    "your_name": ("你的名字（可不填）", "你的名字（可不填）", "Your name (optional)"),
    "sent": ("已提交，等主持人确认", "已提交，等主持人確認", "Sent: waiting for the host"),
    "reading": ("正在识别照片…", "正在辨識照片…", "Reading the photo…"),
    "pending": ("待确认的提议", "待確認的提議", "Proposals waiting"),
    "proposal_by": ("{who}的提议", "{who}的提議", "Proposed by {who}"),
    "a_guest": ("客人", "客人", "a guest"),
    "accept": ("确认记账", "確認記帳", "Accept and record"),
    "reject": ("不要", "不要", "Reject"),
    "accepted": ("已记账：第{n}手", "已記帳：第{n}手", "Recorded: hand {n}"),
    "rejected": ("已拒绝", "已拒絕", "Rejected"),
    "host": ("主持人", "主持人", "Host"),
    "doubts": ("存疑 {n} 处", "存疑 {n} 處", "{n} doubts"),
    "no_longer": ("现在不能记：{msg}", "現在不能記：{msg}", "Cannot be recorded now: {msg}"),
    "proposals_off": ("主持人没有开放提议", "主持人沒有開放提議", "The host has not opened proposals"),
    "pick_winner": ("请选胡家", "請選胡家", "Pick the winner"),
    "pick_from": ("请选谁放的", "請選誰放的", "Pick who discarded"),
    "pick_total": ("请填总数", "請填總數", "Enter the total"),
}


def words(lang: str) -> dict[str, str]:
    """Every page word in ``lang`` (an unknown language reads as simplified Chinese)."""
    col = LANGS.index(lang) if lang in LANGS else 0
    return {k: v[col] for k, v in _W.items()}


def word(lang: str, key: str, **kw: object) -> str:
    text = words(lang)[key]
    return text.format(**kw) if kw else text
