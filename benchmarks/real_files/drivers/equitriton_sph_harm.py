"""Corpus driver (kx's code): Intel Labs' EquiTriton spherical harmonics
(IntelLabs/EquiTriton, src/equitriton/sph_harm/direct/: one Triton forward and one backward
kernel per order l = 0..10, closed-form polynomials in x, y, z with hundreds of constants, each
kernel writing its 2l + 1 columns at a column offset of one shared output) called through the
package's TritonSphericalHarmonic autograd Function, as an equivariant interatomic potential
embeds its edge vectors: orders 0..7 at once (64 columns) for the edges of a batch of molecular
graphs, then the backward kernels for the edge-vector gradient (forces). Output and gradient
checked against the file's own PyTorch polynomials (torch_spherical_harmonic) under autograd;
then the forward of orders 8, 9, 10 (and 3, 4, 5) through triton_spherical_harmonic. (The l = 8
backward kernel disagrees with the file's own torch polynomials, so no gradient is taken there.)"""

import _corpus18_support as S
import torch

S.install_e3nn_standin()
from equitriton.sph_harm.direct.utils import (  # noqa: E402
    TritonSphericalHarmonic,
    torch_spherical_harmonic,
    triton_spherical_harmonic,
)

torch.manual_seed(0)
dev = "cuda"
N_EDGES, LMAX = S.pick((262144, 7), (200, 7))

coords = torch.randn(N_EDGES, 3, device=dev)
coords = coords / coords.norm(dim=-1, keepdim=True) * (0.8 + 0.4 * torch.rand(N_EDGES, 1, device=dev))
coords.requires_grad_(True)
l_values = list(range(LMAX + 1))

out = TritonSphericalHarmonic.apply(l_values, coords)
g_out = torch.randn_like(out)
(out * g_out).sum().backward()
got_grad, coords.grad = coords.grad.clone(), None

ref = torch.cat([torch_spherical_harmonic(lv, coords) for lv in l_values], dim=-1)
((ref * g_out).sum() + 0 * coords.sum()).backward()  # l = 0 is constant
want_grad = coords.grad.clone()
e_out, e_grad = S.rel_err(out, ref), S.rel_err(got_grad, want_grad)
print(
    f"{N_EDGES} edges, l = 0..{LMAX} ({out.shape[-1]} columns): out rel err {e_out:.1e}, grad rel err {e_grad:.1e}"
)
assert out.shape == (N_EDGES, (LMAX + 1) ** 2) and e_out < 1e-4 and e_grad < 1e-3, (e_out, e_grad)

with torch.no_grad():
    for ls in ([10, 8, 9], [5, 3, 4]):
        sub = triton_spherical_harmonic(ls, coords.detach())
        want = torch.cat([torch_spherical_harmonic(lv, coords.detach()) for lv in sorted(ls)], dim=-1)
        e_sub = S.rel_err(sub, want)
        print(f"triton_spherical_harmonic({sorted(ls)}): {sub.shape[-1]} columns, rel err {e_sub:.1e}")
        assert e_sub < 1e-4, e_sub
torch.cuda.synchronize()
print("equitriton_sph_harm ok")
