//! The multi-layer perceptron of the centralized controller (spec §9b): bias unit on the input layer
//! only, tanh on every later layer (output included), weights in source-major order.

/// Layer sizes n₀ … n_{L+1}: n₀ = features + (1 if driven) + 1 bias, then the hidden layers, then
/// one output per voxel.
pub fn mlp_layer_sizes(features: usize, driven: bool, hidden: &[usize], outputs: usize) -> Vec<usize> {
    let n0 = features.saturating_add(driven as usize).saturating_add(1);
    std::iter::once(n0).chain(hidden.iter().copied()).chain(std::iter::once(outputs)).collect()
}

/// |θ| = Σ_j n_j·n_{j+1} (saturating, so absurd sizes give a count no weight vector can match).
pub fn weight_count(sizes: &[usize]) -> usize {
    sizes.windows(2).fold(0usize, |acc, w| acc.saturating_add(w[0].saturating_mul(w[1])))
}

/// A network with its activation buffers allocated once: `forward` does not allocate.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlp {
    sizes: Vec<usize>,
    weights: Vec<f64>,
    /// `layers[j]` holds the activations of layer j; `layers[0]` ends with the bias (1).
    layers: Vec<Vec<f64>>,
}

impl Mlp {
    /// `sizes` includes the bias in n₀. Returns `None` unless there are at least two layers, n₀ ≥ 1
    /// and `weights.len() == weight_count(&sizes)`; callers report the mismatch in their own terms.
    pub fn new(sizes: Vec<usize>, weights: Vec<f64>) -> Option<Mlp> {
        if sizes.len() < 2 || sizes[0] == 0 || weights.len() != weight_count(&sizes) {
            return None;
        }
        let mut layers: Vec<Vec<f64>> = sizes.iter().map(|&n| vec![0.0; n]).collect();
        if let Some(bias) = layers[0].last_mut() {
            *bias = 1.0;
        }
        Some(Mlp { sizes, weights, layers })
    }

    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// The input slots to fill before [`Mlp::forward`] (the bias slot excluded).
    pub(crate) fn inputs_mut(&mut self) -> &mut [f64] {
        let n = self.sizes[0] - 1;
        &mut self.layers[0][..n]
    }

    /// Activations of layer j (0 = inputs with the bias last); empty if j is out of range.
    pub fn layer(&self, j: usize) -> &[f64] {
        self.layers.get(j).map_or(&[], |l| l.as_slice())
    }

    /// The outputs of the last `forward`.
    pub fn outputs(&self) -> &[f64] {
        self.layers.last().map_or(&[], |l| l.as_slice())
    }

    /// Runs the network on the current inputs and returns the outputs.
    pub fn forward(&mut self) -> &[f64] {
        let mut offset = 0;
        for j in 0..self.layers.len() - 1 {
            let (src, dst) = self.layers.split_at_mut(j + 1);
            let (src, dst) = (&src[j], &mut dst[0]);
            let m = dst.len();
            let w = &self.weights[offset..offset + src.len() * m];
            dst.fill(0.0);
            // Source-major weights: row i holds the weights from neuron i to every destination, so
            // each destination still sums its terms in increasing i.
            for (a, row) in src.iter().zip(w.chunks_exact(m)) {
                for (d, wk) in dst.iter_mut().zip(row) {
                    *d += a * wk;
                }
            }
            for d in dst.iter_mut() {
                *d = d.tanh();
            }
            offset += src.len() * m;
        }
        self.outputs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts() {
        let s = mlp_layer_sizes(20, true, &[10], 6);
        assert_eq!(s, vec![22, 10, 6]);
        assert_eq!(weight_count(&s), 280);
        assert_eq!(mlp_layer_sizes(3, false, &[], 2), vec![4, 2]);
        assert_eq!(weight_count(&[4, 2]), 8);
        assert_eq!(weight_count(&[usize::MAX, 2, 3]), usize::MAX);
    }

    #[test]
    fn spec_numeric_check() {
        let mut m = Mlp::new(vec![2, 2, 1], vec![1.0, 0.0, 1.0, 2.0, 1.0, -1.0]).unwrap();
        m.inputs_mut()[0] = 2.0;
        let out = m.forward()[0];
        assert_eq!(m.layer(0), &[2.0, 1.0]);
        assert_eq!(m.layer(1), &[3f64.tanh(), 2f64.tanh()]);
        assert!((m.layer(1)[0] - 0.995055).abs() < 1e-6);
        assert!((m.layer(1)[1] - 0.964028).abs() < 1e-6);
        assert!((out - 0.031017).abs() < 1e-6, "{out}");
        assert_eq!(out, (3f64.tanh() - 2f64.tanh()).tanh());
    }

    #[test]
    fn no_hidden_layer_and_several_outputs() {
        // Sizes [3, 2]: w[i][k] at i*2 + k.
        let mut m = Mlp::new(vec![3, 2], vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).unwrap();
        m.inputs_mut().copy_from_slice(&[1.0, -2.0]);
        let out = m.forward().to_vec();
        assert_eq!(out, vec![(0.1 - 0.6 + 0.5f64).tanh(), (0.2 - 0.8 + 0.6f64).tanh()]);
    }

    #[test]
    fn wrong_weight_count_is_refused() {
        assert!(Mlp::new(vec![2, 2, 1], vec![0.0; 5]).is_none());
        assert!(Mlp::new(vec![2], vec![]).is_none());
        assert!(Mlp::new(vec![0, 1], vec![]).is_none());
    }
}
