"""File sharing with PubNub's official Python SDK (pubnub==10.8.0).

Usage:
  files_interop.py selftest ORIGIN PUBLISH_KEY SUBSCRIBE_KEY
      Sends, lists, downloads (plain, AES-CBC and legacy encrypted) and deletes files against the
      emulator, and reads the file message from the history. Exits non-zero on any mismatch.
  files_interop.py send ORIGIN PUBLISH_KEY SUBSCRIBE_KEY CHANNEL CRYPTO
      Sends one file (the bytes of CONTENT below) on CHANNEL, stored in the history; prints one
      JSON line with its id, name and the file message's timetoken.
  files_interop.py download ORIGIN PUBLISH_KEY SUBSCRIBE_KEY CHANNEL CRYPTO ID NAME
      Downloads the file; prints one JSON line with its bytes as hex and what list_files shows.

CRYPTO is `none`, `aescbc:KEY` or `legacy:KEY` (random IVs). ORIGIN is what the emulator's
banner prints (http://HOST:PORT).
"""

import json
import sys

from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule
from pubnub.pubnub import PubNub

from interop_common import check, configuration, failures

CONTENT = bytes(range(256)) + b"interop file\r\n--boundary-lookalike--\r\n"


def client(origin, publish_key, subscribe_key, user_id, crypto="none"):
    config = configuration(origin, publish_key, subscribe_key, user_id)
    kind, _, key = crypto.partition(":")
    if kind != "none":
        config.cipher_key = key
        config.use_random_initialization_vector = True
        config.crypto_module = AesCbcCryptoModule(config) if kind == "aescbc" else LegacyCryptoModule(config)
    return PubNub(config)


def send(pubnub, channel, name, content, message=None):
    envelope = pubnub.send_file().channel(channel).file_name(name).file_object(content) \
        .message(message).should_store(True).sync()
    return envelope.result


def download(pubnub, channel, file_id, name):
    return pubnub.download_file().channel(channel).file_id(file_id).file_name(name).sync().result.data


def selftest(origin, publish_key, subscribe_key):
    for crypto in ["none", "aescbc:enigma", "legacy:enigma"]:
        pubnub = client(origin, publish_key, subscribe_key, "py-files", crypto)
        plain = client(origin, publish_key, subscribe_key, "py-plain")
        channel = "py.files." + crypto.split(":")[0]
        try:
            sent = send(pubnub, channel, "hello.bin", CONTENT, {"text": "a file"})
            check(bool(sent.file_id) and sent.name == "hello.bin", f"{crypto}: send_file returns an id and the name")
            check(int(sent.timestamp) > 0, f"{crypto}: send_file returns the file message's timetoken")

            listed = pubnub.list_files().channel(channel).sync().result
            check([item["id"] for item in listed.data] == [sent.file_id], f"{crypto}: list_files shows the file")

            url = pubnub.get_file_url().channel(channel).file_id(sent.file_id).file_name("hello.bin").sync()
            check("/_files/download/" in url.result.file_url, f"{crypto}: get_file_url answers the emulator's URL")

            data = download(pubnub, channel, sent.file_id, "hello.bin")
            check(data == CONTENT, f"{crypto}: download_file returns the bytes sent")
            if crypto != "none":
                raw = download(plain, channel, sent.file_id, "hello.bin")
                check(raw != CONTENT and pubnub.crypto.decrypt_file(raw) == CONTENT,
                      f"{crypto}: storage holds the crypto module's ciphertext")

            history = pubnub.fetch_messages().channels([channel]).include_message_type(True).sync()
            items = history.result.channels.get(channel, [])
            check(len(items) == 1 and int(items[0].timetoken) == int(sent.timestamp),
                  f"{crypto}: the file message is stored in the history")

            pubnub.delete_file().channel(channel).file_id(sent.file_id).file_name("hello.bin").sync()
            listed = pubnub.list_files().channel(channel).sync().result
            check(listed.data == [], f"{crypto}: delete_file removes it")
        finally:
            pubnub.stop()
            plain.stop()

    # Paging with limit and next.
    pubnub = client(origin, publish_key, subscribe_key, "py-files")
    try:
        channel = "py.files.pages"
        ids = [send(pubnub, channel, f"f{n}", bytes([n])).file_id for n in range(5)]
        seen = []
        page = pubnub.list_files().channel(channel).limit(2).sync().result
        seen += [item["id"] for item in page.data]
        while page.next:
            page = pubnub.list_files().channel(channel).limit(2).next(page.next).sync().result
            seen += [item["id"] for item in page.data]
        check(seen == ids, "list_files pages with limit and next through every file in upload order")
    finally:
        pubnub.stop()


def main():
    mode = sys.argv[1]
    origin, publish_key, subscribe_key = sys.argv[2:5]
    if mode == "selftest":
        selftest(origin, publish_key, subscribe_key)
        print(f"{len(failures)} failure(s)", flush=True)
        sys.exit(1 if failures else 0)
    channel, crypto = sys.argv[5:7]
    pubnub = client(origin, publish_key, subscribe_key, "py-files", crypto)
    try:
        if mode == "send":
            sent = send(pubnub, channel, "from-python.bin", CONTENT, {"from": "python"})
            print(json.dumps({"id": sent.file_id, "name": sent.name, "timetoken": str(sent.timestamp)}))
        elif mode == "download":
            file_id, name = sys.argv[7:9]
            data = download(pubnub, channel, file_id, name)
            listed = pubnub.list_files().channel(channel).sync().result
            print(json.dumps({"hex": data.hex(), "files": [{"id": item["id"], "name": item["name"]}
                                                          for item in listed.data]}))
        else:
            sys.exit(f"unknown mode {mode}")
    finally:
        pubnub.stop()


if __name__ == "__main__":
    main()
