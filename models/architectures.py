"""Real architectures from torchvision and transformers, at small configs.

The zoo's hand-written models show what each op does; these show that the
runtime runs the code people actually ship: the library classes themselves,
only made narrow and shallow so each program stays a few hundred KB. Weights
are seeded (nothing is downloaded). Each entry is (make the model, make its
example inputs), as in `models.export.ZOO`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
from torch import nn

Inputs = Callable[[torch.Generator], tuple[torch.Tensor, ...]]


@functools.cache
def torchvision_models():  # type: ignore[no-untyped-def]
    """torchvision's model classes.

    The only torchvision wheel on these machines is a CUDA build whose compiled
    ops cannot load against the CPU torch. Its import only registers fake
    kernels for two of those ops; defining their schemas first lets the pure
    Python model classes (which never call them) import. transformers imports
    torchvision when it is installed, so it comes through here too.
    """
    if not hasattr(torch.ops.torchvision, "nms"):
        library = torch.library.Library("torchvision", "DEF")
        library.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        library.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        torchvision_models.library = library  # type: ignore[attr-defined]  # kept alive with the definitions
    import torchvision.models

    return torchvision.models


def hf():  # type: ignore[no-untyped-def]
    torchvision_models()
    import transformers

    return transformers


class FirstOutput(nn.Module):
    """A transformers model returning its first output (the last hidden state) as one tensor."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        out = self.model(*inputs, return_dict=False)
        return out[0]


def spread(model: nn.Module) -> nn.Module:
    """Re-draws the weights so every layer does visible work.

    Library initialisations are tuned for training, not for a numerical test:
    torchvision zero-initialises ViT's head and draws EfficientNet's classifier
    at 0.01, so their outputs are zeros or 1e-11 and a wrong kernel would still
    match. Weights get unit-gain scaling, norms and biases a spread around
    their neutral values (the caller seeds torch).
    """
    with torch.no_grad():
        for module in model.modules():
            weight, bias = getattr(module, "weight", None), getattr(module, "bias", None)
            if isinstance(module, nn.Linear | nn.Conv1d | nn.Conv2d | nn.Embedding) and weight is not None:
                fan_in = weight[0].numel() if not isinstance(module, nn.Embedding) else 1
                weight.normal_(0.0, fan_in**-0.5)
            elif isinstance(module, nn.LayerNorm | nn.GroupNorm) and weight is not None:
                weight.uniform_(0.5, 1.5)
            if isinstance(bias, torch.Tensor):
                bias.uniform_(-0.2, 0.2)
    return model


def image(size: int, channels: int = 3) -> Inputs:
    return lambda g: (torch.randn(1, channels, size, size, generator=g),)


def token_ids(length: int, vocab: int) -> Inputs:
    return lambda g: (torch.randint(0, vocab, (1, length), generator=g),)


def audio(samples: int) -> Inputs:
    return lambda g: (torch.randn(1, samples, generator=g),)


def convnext() -> nn.Module:
    tv = torchvision_models()
    stages = [tv.convnext.CNBlockConfig(16, 32, 1), tv.convnext.CNBlockConfig(32, None, 1)]
    return tv.ConvNeXt(stages, stochastic_depth_prob=0.0, num_classes=10)


def densenet() -> nn.Module:
    return torchvision_models().DenseNet(
        growth_rate=8, block_config=(2, 2), num_init_features=16, bn_size=2, num_classes=10
    )


def efficientnet() -> nn.Module:
    tv = torchvision_models()
    settings, _ = tv.efficientnet._efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
    return tv.EfficientNet(settings, dropout=0.0, last_channel=64, num_classes=10)  # the head is most of the bytes


def mobilenet_v3() -> nn.Module:
    tv = torchvision_models()
    settings, _ = tv.mobilenetv3._mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25)
    return tv.MobileNetV3(settings, last_channel=64, num_classes=10)  # the head is most of the bytes


def regnet() -> nn.Module:
    tv = torchvision_models()
    params = tv.regnet.BlockParams.from_init_params(depth=3, w_0=8, w_a=4.0, w_m=2.0, group_width=4, se_ratio=0.25)
    return tv.RegNet(params, num_classes=10)


def shufflenet_v2() -> nn.Module:
    return torchvision_models().ShuffleNetV2([1, 1, 1], [8, 16, 32, 64, 128], num_classes=10)


def swin() -> nn.Module:
    return torchvision_models().swin_transformer.SwinTransformer(
        patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 2], window_size=[4, 4], num_classes=10
    )


def vit() -> nn.Module:
    return torchvision_models().VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10
    )


SMALL_ENCODER = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}


def bert() -> nn.Module:
    transformers = hf()
    return FirstOutput(transformers.BertModel(transformers.BertConfig(vocab_size=100, **SMALL_ENCODER)))


def distilbert() -> nn.Module:
    transformers = hf()
    config = transformers.DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=2, hidden_dim=64)
    return FirstOutput(transformers.DistilBertModel(config))


def roberta() -> nn.Module:
    transformers = hf()
    return FirstOutput(transformers.RobertaModel(transformers.RobertaConfig(vocab_size=100, **SMALL_ENCODER)))


def gpt2() -> nn.Module:
    transformers = hf()
    config = transformers.GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=32)
    return FirstOutput(transformers.GPT2Model(config))


def t5_encoder() -> nn.Module:
    transformers = hf()
    config = transformers.T5Config(vocab_size=100, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2)
    return FirstOutput(transformers.T5EncoderModel(config))


def hf_vit() -> nn.Module:
    transformers = hf()
    return FirstOutput(transformers.ViTModel(transformers.ViTConfig(image_size=32, patch_size=8, **SMALL_ENCODER)))


def wav2vec2() -> nn.Module:
    transformers = hf()
    config = transformers.Wav2Vec2Config(
        **SMALL_ENCODER,
        conv_dim=(16, 16),
        conv_stride=(5, 2),
        conv_kernel=(10, 3),
        num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=2,
    )
    return FirstOutput(transformers.Wav2Vec2Model(config))


def mobilevit() -> nn.Module:
    transformers = hf()
    config = transformers.MobileViTConfig(
        image_size=32,
        hidden_sizes=[16, 16, 16],
        neck_hidden_sizes=[8, 8, 8, 8, 16, 16, 32],
        num_attention_heads=2,
        expand_ratio=2.0,
    )
    return FirstOutput(transformers.MobileViTModel(config))


ARCHITECTURES: dict[str, tuple[Callable[[], nn.Module], Inputs]] = {
    name: (lambda make=make: spread(make()), inputs)
    for name, (make, inputs) in {
        "tv_convnext": (convnext, image(32)),
        "tv_densenet": (densenet, image(32)),
        "tv_efficientnet": (efficientnet, image(32)),
        "tv_mobilenet_v3": (mobilenet_v3, image(32)),
        "tv_regnet": (regnet, image(32)),
        "tv_shufflenet_v2": (shufflenet_v2, image(32)),
        "tv_swin": (swin, image(32)),
        "tv_vit": (vit, image(32)),
        "hf_bert": (bert, token_ids(8, 100)),
        "hf_distilbert": (distilbert, token_ids(8, 100)),
        "hf_roberta": (roberta, token_ids(8, 100)),
        "hf_gpt2": (gpt2, token_ids(8, 100)),
        "hf_t5_encoder": (t5_encoder, token_ids(8, 100)),
        "hf_vit": (hf_vit, image(32)),
        "hf_wav2vec2": (wav2vec2, audio(400)),
        "hf_mobilevit": (mobilevit, image(32)),
    }.items()
}
