"""Reading a rank dictionary: two processes each add their own number into one all-reduce.

Run it yourself: `PYTHONPATH=src:. torchrun --nproc-per-node 2 -m snippets.reading.ranks`
"""

from hood.capture.common import words

# --8<-- [start:body]
import torch
import torch.distributed as dist


def all_reduce_rank():
    """On each rank: hold `rank + 1`, all-reduce (a sum), and report both values."""
    dist.init_process_group("gloo")  # torchrun's environment says who this rank is
    try:
        rank = dist.get_rank()
        t = torch.tensor([rank + 1.0])
        before = t.tolist()
        dist.all_reduce(t)  # every rank ends with the sum of every rank's tensor
        return {words(en="world size", es="número de ranks"): dist.get_world_size(),
                words(en="before all_reduce", es="antes del all_reduce"): before,
                words(en="after all_reduce", es="después del all_reduce"): t.tolist()}
    finally:
        dist.destroy_process_group()
# --8<-- [end:body]


if __name__ == "__main__":
    print(all_reduce_rank())
