"""What the GPUDirect-off tests (gpudirect_off.sh, gpudirect_later.sh, gpudirect_at.sh) share:
staged data crosses a server's host memory, so its CPU node sends bytes; no other CPU does."""
import weft_trace as wt


def assert_only_server_staged(path, server="dgx-2", at_least=64e6):
    """The CPU of @server sent more than @at_least bytes (at least one 64 MB collective staged
    through it) and every other server's CPU sent none."""
    names = [n.decode() if isinstance(n, bytes) else n for n in wt.nodes(path)["name"]]
    cpu = {}
    for p in wt.ports(path):
        name = names[int(p["node"])]
        if name.endswith("/cpu"):
            cpu[name] = cpu.get(name, 0) + int(p["tx_bytes"])
    mine = f"{server}/cpu"
    assert cpu[mine] > at_least, cpu
    assert all(v == 0 for k, v in cpu.items() if k != mine), cpu
