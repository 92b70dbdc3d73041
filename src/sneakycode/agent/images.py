"""Images in the conversation: how they travel in messages, what they cost, and how they are dropped.

OpenAI-compatible servers take images only in user messages (most reject an image inside a `role: tool`
message), as `{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}` parts of a content
array. So a tool result with an image says in its text that the image is attached below, and after the
reply's last tool message one user message carries the images of that reply's calls. The message also
keeps each image's size under IMAGE_SIZES (never sent: `client.prepare_messages` leaves it out), from which the
context estimate counts an image as width x height / 750 tokens, Anthropic's published rule (OpenAI's
high-detail tiles come out lower, so the estimate stays on the high side, as every estimate here does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sneakycode.agent.messages import ContentPart, ImageURLPart, Message, UserMessage
from sneakycode.tools.base import ImagePart

IMAGE_SIZES: Final = "image_sizes"
"""Message key (not sent): [width, height] of each image part, in order."""
TOOL_IMAGES: Final = "tool_images"
"""Message key (not sent): True on the user message that carries tool results' images, which is not a request."""
PIXELS_PER_TOKEN = 750
UNKNOWN_IMAGE_TOKENS = 1600  # an image whose size was not kept: about a 1,000 x 1,200 px one
IMAGE_DROPPED = "[image dropped to fit the context window: {what}]"


def image_part(image: ImagePart) -> ImageURLPart:
    return {"type": "image_url", "image_url": {"url": image.data_url()}}


def user_message(text: str, images: list[ImagePart], *, from_tools: bool = False) -> UserMessage:
    """A user message with text and images (plain text when there are none)."""
    if not images:
        return {"role": "user", "content": text}
    message: UserMessage = {
        "role": "user",
        "content": [{"type": "text", "text": text}, *(image_part(image) for image in images)],
        IMAGE_SIZES: [[image.width, image.height] for image in images],
    }
    if from_tools:
        message[TOOL_IMAGES] = True
    return message


def tool_images_message(images: list[tuple[str, ImagePart]]) -> UserMessage:
    """The user message that follows a reply's tool messages with their images; each `(label, image)` is
    labelled by the call it came from."""
    listed = "; ".join(f"{number}. {label}" for number, (label, _) in enumerate(images, 1))
    text = f"The image(s) from the tool results above, in order: {listed}"
    return user_message(text, [image for _, image in images], from_tools=True)


def content_text(content: str | Sequence[ContentPart] | None) -> str:
    """The text of a message's content, whether a string or an array of parts (images left out)."""
    if content is None or isinstance(content, str):
        return content or ""
    return "\n".join(part["text"] for part in content if part["type"] == "text")


def image_count(message: Message) -> int:
    if message["role"] != "user" or isinstance(message["content"], str):
        return 0
    return sum(1 for part in message["content"] if part["type"] == "image_url")


def image_tokens(message: Message) -> int:
    """What the message's images cost, by the width x height / 750 rule."""
    if message["role"] != "user":
        return 0
    count = image_count(message)
    sizes = message.get(IMAGE_SIZES) or []
    known = [int(w) * int(h) // PIXELS_PER_TOKEN for w, h in sizes[:count]]
    return sum(known) + UNKNOWN_IMAGE_TOKENS * (count - len(known))


def drop_images(message: Message) -> int:
    """Replace the message's images by a text note each, in place; returns how many were dropped."""
    if message["role"] != "user" or isinstance(message["content"], str):
        return 0
    count = image_count(message)
    if not count:
        return 0
    text = content_text(message["content"])
    what = text.splitlines()[0][:200] if text else "an image"
    parts = [part for part in message["content"] if part["type"] != "image_url"]
    note = IMAGE_DROPPED.format(what=what) + " Read the file again if you need to see it."
    # Plain text again, as every server takes it.
    message["content"] = "\n".join([content_text(parts), note]).strip()
    message.pop(IMAGE_SIZES, None)
    return count
