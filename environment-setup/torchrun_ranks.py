"""Print the ranks torchrun gives this process (in environment variables), nothing more.

The script that .run/torchrun_ranks.run.xml launches (docs/environment/pycharm.md): it
needs only the standard library, so its two processes start at once; put your own
`torchrun` script in its place in the configuration's PARAMETERS.
"""

import os

rank, local_rank, world_size = os.environ["RANK"], os.environ["LOCAL_RANK"], os.environ["WORLD_SIZE"]
print(f"rank {rank} of {world_size}, local rank {local_rank}")
