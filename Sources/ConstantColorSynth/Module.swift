public enum ConstantColorSynthModule {}
