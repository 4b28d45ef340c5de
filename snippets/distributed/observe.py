"""What a rank can observe: the calls gloo ran (profiler), the collectives asked for (CommDebugMode), shards."""

# --8<-- [start:body]
from contextlib import contextmanager

from torch.distributed.tensor.debug import CommDebugMode
from torch.profiler import ProfilerActivity, profile


def profiled():
    """A CPU profiler: its rows name what the gloo backend really ran (`gloo:all_reduce`, ...)."""
    return profile(activities=[ProfilerActivity.CPU])


def gloo_calls(prof):
    """Calls the gloo backend executed in a profiled region, by name."""
    return {e.key: e.count for e in sorted(prof.key_averages(), key=lambda e: e.key) if e.key.startswith("gloo:")}


def comm_counts(comm_mode):
    """Collectives a region asked for, by operator, as `torch.distributed.tensor.debug.CommDebugMode` counted them."""
    return {str(op): n for op, n in sorted(comm_mode.get_comm_counts().items(), key=lambda kv: str(kv[0])) if n}


@contextmanager
def observing(region):
    """Both observations of a region; the yielded dict is filled when the region ends."""
    seen, comm_mode = {}, CommDebugMode()
    with profiled() as prof, comm_mode:
        yield seen
    seen[f"{region} asks for"] = comm_counts(comm_mode)
    seen[f"{region}, gloo runs"] = gloo_calls(prof)


def describe(p):
    """A DTensor parameter: its placement, the shard this rank holds, the whole shape."""
    return f"{type(p).__name__} {p.placements}, local {tuple(p.to_local().shape)} of {tuple(p.shape)}"


def describe_stage(stage):
    """A pipeline stage: its layers and the shapes of the parameters this rank holds."""
    return {"stage": " + ".join(type(m).__name__ for m in stage),
            "parameter shapes": ", ".join(str(tuple(p.shape)) for p in stage.parameters())}
# --8<-- [end:body]
